// Every failure status with the contract's error body, authentication (incl. keys revoked with the CLI), tenancy across
// keys, and the unauthenticated meta routes (issue 2, docs/api.md "Conventions", "Errors", "Authentication and
// tenancy").
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type HttpResult, type TestServer } from '../helpers/server.js';
import { runCli } from '../helpers/cli.js';
import { expectError } from '../helpers/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const newSession = async (key?: string) => {
  const res = await s.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' }, key });
  expect(res.status).toBe(201);
  return res.body;
};

/** A request with exactly these headers (fetch would add a content-type to a string body). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(s.baseUrl + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode!, headers: h, body: parsed as any, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
const auth = () => ({ authorization: `Bearer ${s.apiKey}` });

describe('400: validation and malformed bodies', () => {
  it('malformed JSON → 400 invalid_request_error invalid_json', async () => {
    const res = await s.request('POST', '/create-session', {
      rawBody: '{"amount": 100, "currency": ',
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 400, 'invalid_request_error', 'invalid_json');
  });

  it('invalid_json never quotes the body (it may hold a card number or an SSN)', async () => {
    // JSON.parse's own message quotes the text around some errors ("Unexpected token …, "…" is not valid JSON").
    for (const rawBody of [
      '{"type":"ssn","value":"987654321","x":tru}',
      '{"type":"ssn","value":[987654321,]}',
      '{"type":"ssn","value":"987654321","field_name":}',
      'x{"value":"987654321"}',
    ]) {
      const res = await s.request('POST', '/identity-tokens', {
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 400, 'invalid_request_error', 'invalid_json');
      expect(res.body.error.message).toMatch(/^Invalid JSON in the request body: /);
      for (const fragment of ['987654321', '4321', 'tru}', 'value'])
        expect(res.body.error.message).not.toContain(fragment);
    }
  });

  it('a JSON body that is not an object → 400 invalid_body', async () => {
    expectError(
      await s.request('POST', '/create-session', { body: [1, 2] }),
      400,
      'invalid_request_error',
      'invalid_body',
    );
    expectError(
      await s.request('POST', '/create-session', { body: 'usd' }),
      400,
      'invalid_request_error',
      'invalid_body',
    );
  });

  it('missing / invalid / unknown parameters in body and query name the param', async () => {
    expectError(
      await s.request('POST', '/create-session', { body: { currency: 'usd' } }),
      400,
      'validation_error',
      'parameter_missing',
      'amount',
    );
    expectError(
      await s.request('POST', '/create-session', { body: { amount: 'ten', currency: 'usd' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'amount',
    );
    expectError(
      await s.request('POST', '/create-session', { body: { amount: 1, currency: 'usd', x: 1 } }),
      400,
      'validation_error',
      'parameter_unknown',
      'x',
    );
    expectError(await s.request('GET', '/sessions?limit=500'), 400, 'validation_error', 'parameter_invalid', 'limit');
    expectError(await s.request('GET', '/sessions?x=1'), 400, 'validation_error', 'parameter_unknown', 'x');
    expectError(
      await s.request('GET', '/health?x=1', { key: null }),
      400,
      'validation_error',
      'parameter_unknown',
      'x',
    );
  });

  it('a POST without parameters takes no body, {} or an empty body with the JSON type', async () => {
    const a = await newSession();
    const res = await raw(
      'POST',
      `/sessions/${a.id}/cancel`,
      { ...auth(), 'content-type': 'application/json', 'content-length': '0' },
      '',
    );
    expect(res.status).toBe(200);
  });
});

describe('401: authentication', () => {
  it('no Authorization header → missing_api_key', async () => {
    expectError(await s.request('GET', '/sessions', { key: null }), 401, 'authentication_error', 'missing_api_key');
    expectError(
      await s.request('POST', '/create-session', { key: null, body: { amount: 1, currency: 'usd' } }),
      401,
      'authentication_error',
      'missing_api_key',
    );
  });

  it('an unknown or malformed key → invalid_api_key, and the message never echoes the key', async () => {
    const bogus = 'sk_test_' + 'A'.repeat(32);
    const res = await s.request('GET', '/sessions', { key: bogus });
    expectError(res, 401, 'authentication_error', 'invalid_api_key');
    expect(res.text).not.toContain(bogus);
    expectError(await s.request('GET', '/sessions', { key: 'hello' }), 401, 'authentication_error', 'invalid_api_key');
    expectError(
      await s.request('GET', '/sessions', { key: s.apiKey + 'x' }),
      401,
      'authentication_error',
      'invalid_api_key',
    );
    expectError(
      await raw('GET', '/sessions', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }),
      401,
      'authentication_error',
      'invalid_api_key',
    );
  });

  it('an sk_live_ key → livemode_unavailable', async () => {
    const res = await s.request('POST', '/create-session', {
      key: 'sk_live_' + 'B'.repeat(32),
      body: { amount: 1, currency: 'usd' },
    });
    expectError(res, 401, 'authentication_error', 'livemode_unavailable');
  });

  it('authentication comes before validation (a bad body with no key is a 401, not a 400)', async () => {
    expectError(
      await s.request('POST', '/create-session', { key: null, body: { nope: 1 } }),
      401,
      'authentication_error',
      'missing_api_key',
    );
  });

  it('a key revoked with `payorch server keys revoke` → api_key_revoked; other keys keep working', async () => {
    const made = await runCli(['server', 'keys', 'create', '--json', '--data-dir', s.dataDir!]);
    expect(made.code).toBe(0);
    const { api_key: key } = made.json();
    expect(key).toMatch(/^sk_test_[0-9A-Za-z]+$/);
    expect((await s.request('GET', '/sessions', { key })).status).toBe(200);
    const revoked = await runCli(['server', 'keys', 'revoke', key, '--data-dir', s.dataDir!]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout + revoked.stderr).not.toContain(key);
    expectError(await s.request('GET', '/sessions', { key }), 401, 'authentication_error', 'api_key_revoked');
    expect((await s.request('GET', '/sessions')).status).toBe(200);
    const listed = await runCli(['server', 'keys', 'list', '--json', '--data-dir', s.dataDir!]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).not.toContain(s.apiKey);
    const rows = listed.json<{ data: { masked: string; revoked_at: string | null }[] }>().data ?? listed.json();
    expect(rows.some((r) => r.masked.endsWith(key.slice(-4)) && r.revoked_at)).toBe(true);
  });
});

describe('tenancy: each key from `server keys create` has its own account', () => {
  it('a second key sees 404 for the first account’s session, an empty list, and vice versa', async () => {
    const mine = await newSession();
    const made = await runCli(['server', 'keys', 'create', '--json', '--data-dir', s.dataDir!]);
    expect(made.code).toBe(0);
    const other = made.json<{ api_key: string; account_id: string }>();
    expect(other.account_id).toMatch(/^acct_/);
    expect(other.account_id).not.toBe(s.server.accountId);
    const key = other.api_key;

    const list = await s.request('GET', '/sessions', { key });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ data: [], total_count: 0, has_more: false });
    expectError(
      await s.request('GET', `/sessions/${mine.id}`, { key }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expectError(
      await s.request('PATCH', `/sessions/${mine.id}`, { key, body: { amount: 1 } }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expectError(
      await s.request('POST', `/sessions/${mine.id}/cancel`, { key }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expectError(
      await s.request('GET', `/sessions?starting_after=${mine.id}`, { key }),
      400,
      'invalid_request_error',
      'resource_missing',
      'starting_after',
    );
    expect((await s.request('GET', `/sessions/${mine.id}`)).body.status).toBe('requires_payment_method');

    const theirs = await newSession(key);
    expectError(await s.request('GET', `/sessions/${theirs.id}`), 404, 'invalid_request_error', 'resource_missing');
    const ownList = await s.request('GET', '/sessions?limit=100');
    expect(ownList.body.data.map((x: { id: string }) => x.id)).not.toContain(theirs.id);
    expect((await s.request('GET', '/sessions', { key })).body.total_count).toBe(1);
  });
});

describe('404, 405, 413, 415', () => {
  it('an unknown route → 404 route_not_found (with or without a key)', async () => {
    expectError(await s.request('GET', '/nothing-here'), 404, 'invalid_request_error', 'route_not_found');
    expectError(
      await s.request('POST', '/sessions/x/refund', { body: {} }),
      404,
      'invalid_request_error',
      'route_not_found',
    );
    expectError(
      await s.request('GET', '/nothing-here', { key: null }),
      404,
      'invalid_request_error',
      'route_not_found',
    );
    const outside = await raw('GET', '/../../elsewhere', {});
    expect(outside.status).toBe(404);
  });

  it('a known path with another method → 405 method_not_allowed with Allow', async () => {
    const a = await s.request('DELETE', '/sessions/0190a8b0-0000-7000-8000-000000000000');
    expectError(a, 405, 'invalid_request_error', 'method_not_allowed');
    expect(a.headers.get('allow')?.split(/,\s*/).sort()).toEqual(['GET', 'PATCH']);
    const b = await s.request('GET', '/create-session');
    expectError(b, 405, 'invalid_request_error', 'method_not_allowed');
    expect(b.headers.get('allow')).toBe('POST');
    const c = await s.request('PUT', '/sessions', { body: {} });
    expectError(c, 405, 'invalid_request_error', 'method_not_allowed');
    expect(c.headers.get('allow')).toBe('GET');
  });

  it('a body over 1 MiB → 413 payload_too_large, and nothing is created', async () => {
    const before = (await s.request('GET', '/sessions')).body.total_count;
    const big = JSON.stringify({ amount: 100, currency: 'usd', description: 'x'.repeat(1024 * 1024) });
    const res = await s.request('POST', '/create-session', {
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 413, 'invalid_request_error', 'payload_too_large');
    expect((await s.request('GET', '/sessions')).body.total_count).toBe(before);
  });

  it('a body of exactly 1 MiB is read (then validated)', async () => {
    const pad = 1024 * 1024 - JSON.stringify({ amount: 100, currency: 'usd', description: '' }).length;
    const body = JSON.stringify({ amount: 100, currency: 'usd', description: 'x'.repeat(pad) });
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const res = await s.request('POST', '/create-session', {
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 400, 'validation_error', 'parameter_invalid', 'description');
  });

  it('a body that is not application/json → 415 unsupported_media_type', async () => {
    const form = await raw(
      'POST',
      '/create-session',
      { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      'amount=100&currency=usd',
    );
    expectError(form, 415, 'invalid_request_error', 'unsupported_media_type');
    const text = await raw(
      'POST',
      '/create-session',
      { ...auth(), 'content-type': 'text/plain' },
      '{"amount":100,"currency":"usd"}',
    );
    expectError(text, 415, 'invalid_request_error', 'unsupported_media_type');
    const none = await raw(
      'POST',
      '/create-session',
      { ...auth(), 'content-length': '31' },
      '{"amount":100,"currency":"usd"}',
    );
    expectError(none, 415, 'invalid_request_error', 'unsupported_media_type');
    const ok = await raw(
      'POST',
      '/create-session',
      { ...auth(), 'content-type': 'application/json; charset=utf-8' },
      '{"amount":100,"currency":"usd"}',
    );
    expect(ok.status).toBe(201);
  });
});

describe('meta routes (no authentication)', () => {
  it('GET /health answers 200 with status ok', async () => {
    const res = await s.request('GET', '/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', livemode: false, version: expect.any(String) });
    expect(res.headers.get('request-id')).toMatch(/^req_/);
  });

  it('GET /openapi.json lists the session routes with their methods', async () => {
    const res = await s.request('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1/);
    const paths = res.body.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths['/create-session'] ?? {})).toContain('post');
    expect(Object.keys(paths['/sessions'] ?? {})).toContain('get');
    expect(Object.keys(paths['/sessions/{session_id}'] ?? {}).sort()).toEqual(expect.arrayContaining(['get', 'patch']));
    expect(Object.keys(paths['/sessions/{session_id}/cancel'] ?? {})).toContain('post');
    expect(JSON.stringify(paths['/create-session'])).toContain('amount');
  });

  it('every response carries a distinct Request-Id', async () => {
    const ids = await Promise.all(
      [1, 2, 3].map(async () => (await s.request('GET', '/health', { key: null })).headers.get('request-id')),
    );
    expect(new Set(ids).size).toBe(3);
  });
});

describe('500: an unexpected failure', () => {
  it('answers api_error internal_error without internals, and logs the details under the request id', async () => {
    const f = await startTestServer();
    const sessions = f.server.services.sessions;
    // fault injection: the handler's domain call throws something unexpected
    sessions.get = () => {
      throw new TypeError('boom: internal detail /very/secret/path');
    };
    const res = await f.request('GET', '/sessions/0190a8b0-0000-7000-8000-000000000000');
    expectError(res, 500, 'api_error', 'internal_error');
    expect(res.text).not.toContain('boom');
    expect(res.text).not.toContain('/very/secret/path');
    expect(res.text).not.toMatch(/at .*\.js:\d+/);
    // the server keeps serving
    expect((await f.request('GET', '/sessions')).status).toBe(200);

    // a 5xx is not saved under its Idempotency-Key: the retry runs (and nothing half-written remains)
    const create = sessions.create.bind(sessions);
    let failOnce = true;
    sessions.create = async (...args: Parameters<typeof create>) => {
      const made = await create(...args);
      if (failOnce) {
        failOnce = false;
        throw new Error('boom after the insert');
      }
      return made;
    };
    const headers = { 'idempotency-key': 'five-hundred' };
    const body = { amount: 100, currency: 'usd', external_id: 'five-hundred' };
    expectError(await f.request('POST', '/create-session', { body, headers }), 500, 'api_error', 'internal_error');
    expect((await f.request('GET', '/sessions?external_id=five-hundred')).body.total_count).toBe(0); // rolled back
    const retry = await f.request('POST', '/create-session', { body, headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect((await f.request('GET', '/sessions?external_id=five-hundred')).body.total_count).toBe(1);
    await f.close();
    const log = readFileSync(join(f.dataDir!, 'server.log'), 'utf8');
    const line = log.split('\n').find((l) => l.includes(res.body.error.request_id) && l.includes('boom'));
    expect(line).toBeDefined();
  });
});
