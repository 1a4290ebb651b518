// The request log's ring (GET /request-log): bounded per account, paged after a seq, per-account sequences.
import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../dist/lib/server/http/requestlog.js';

const req = (accountId: string, i: number, status = 200) => ({
  accountId,
  requestId: `req_${i}`,
  method: 'GET',
  url: `/functions/v1/sessions/${i}?email=a@b.test`,
  status,
  ms: 1.4,
  ip: '127.0.0.1',
  keyId: accountId === 'a' ? 'key_a' : undefined,
});

describe('RequestLog', () => {
  it('keeps the last N entries per account, pages after a seq, and counts each account on its own', () => {
    const log = new RequestLog(3);
    for (let i = 1; i <= 5; i++) log.record(req('a', i, i % 2 ? 200 : 404));
    log.record(req('b', 99));
    const all = log.read('a', '/x', {});
    expect(all.data.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(all.data[0]).toEqual({
      object: 'request_log_entry',
      seq: 3,
      request_id: 'req_3',
      method: 'GET',
      path: '/sessions/3',
      status: 200,
      duration_ms: 1,
      created_at: expect.any(String),
      ip_address: '127.0.0.1',
      api_key: 'key_a',
    });
    expect(all.next_after).toBe(5);
    expect(log.read('b', '/x', {}).data.map((e) => e.seq)).toEqual([1]);
    const first = log.read('a', '/x', { after: 2, limit: 2 });
    expect(first.data.map((e) => e.seq)).toEqual([3, 4]);
    expect(first.has_more).toBe(true);
    expect(log.read('a', '/x', { after: first.next_after, limit: 2 })).toMatchObject({
      has_more: false,
      next_after: 5,
    });
    // a filter that skips entries still moves the cursor past them
    expect(log.read('a', '/x', { after: 2, status: '4xx' })).toMatchObject({ data: [{ seq: 4 }], next_after: 5 });
    expect(log.read('nobody', '/x', { after: 0 })).toMatchObject({ data: [], next_after: 0 });
  });

  it('records nothing for requests of no account, nor the reads that follow a log', () => {
    const log = new RequestLog();
    log.record({ ...req('', 1) });
    log.record({ ...req('a', 2), url: '/functions/v1/request-log?after=3' });
    log.record({ ...req('a', 3), url: '/functions/v1/events?ending_before=evt_1' });
    log.record({ ...req('a', 4), url: '/functions/v1/events?limit=1' });
    log.record({ ...req('a', 5), method: 'POST', url: '/functions/v1/events?ending_before=evt_1' });
    expect(log.read('a', '/x', {}).data.map((e) => [e.method, e.path])).toEqual([
      ['GET', '/events'],
      ['POST', '/events'],
    ]);
  });
});
