// The server log (server/log.ts): the one line per request is built by hand, and must be the line pino writes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fileLogger, LogFile } from '../../dist/lib/server/log.js';
import { existsSync } from 'node:fs';
import { tempDir } from '../helpers/tmp.js';

const settle = async (flush: () => void, path: string, lines: number) => {
  for (let i = 0; i < 100; i++) {
    flush();
    let text = '';
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      /* not created yet */
    }
    if (text.split('\n').filter(Boolean).length >= lines) return text;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`fewer than ${lines} lines in ${path}`);
};

describe('access lines', () => {
  it('are the lines pino writes for the same fields (apart from the time), odd paths included', async () => {
    const dir = tempDir();
    const fields = [
      {
        req: 'req_abc',
        method: 'POST',
        path: '/functions/v1/create-session',
        status: 201,
        ms: 1.234567,
        account: 'acct_1',
      },
      {
        req: 'req_def',
        method: 'GET',
        path: '/functions/v1/x"y\\z/é/\u2028',
        status: 404,
        ms: 0.5,
        account: undefined,
      },
      { req: 'req_ghi', method: 'DELETE', path: '/', status: 500, ms: undefined, account: 'acct_2' },
    ];
    const ours = fileLogger(join(dir, 'ours.log'));
    for (const f of fields) ours.access.write(f);
    const theirsDest = pino.destination({ dest: join(dir, 'pino.log'), sync: true });
    const theirs = pino({ base: { pid: process.pid } }, theirsDest);
    for (const f of fields) theirs.info(f, 'request');
    const withoutTime = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => l.replace(/"time":\d+,/, '"time":0,'));
    const oursText = await settle(() => ours.flush(), join(dir, 'ours.log'), 3);
    expect(withoutTime(oursText)).toEqual(withoutTime(readFileSync(join(dir, 'pino.log'), 'utf8')));
    for (const line of oursText.trim().split('\n')) expect(JSON.parse(line).msg).toBe('request');
  });

  it('are held back at most 64 lines, and written by flush; none at a level above info', async () => {
    const dir = tempDir();
    const log = fileLogger(join(dir, 'server.log'));
    for (let i = 0; i < 64; i++) log.access.write({ req: `req_${i}`, method: 'GET', path: '/', status: 200, ms: 1 });
    log.access.write({ req: 'req_last', method: 'GET', path: '/', status: 200, ms: 1 });
    const text = await settle(() => log.flush(), join(dir, 'server.log'), 65);
    expect(text).toContain('"req":"req_last"');

    const quiet = fileLogger(join(dir, 'quiet.log'), 'warn');
    quiet.access.write({ req: 'req_q', method: 'GET', path: '/', status: 200 });
    quiet.logger.warn('a warning');
    const quietText = await settle(() => quiet.flush(), join(dir, 'quiet.log'), 1);
    expect(quietText).not.toContain('req_q');
  });

  it('a file that takes no writes (ENOSPC: /dev/full) never blocks, throws or emits; the buffer is bounded', async () => {
    if (!existsSync('/dev/full')) return; // Linux only
    const log = fileLogger('/dev/full');
    for (let i = 0; i < 2000; i++) {
      log.access.write({ req: `req_${i}`, method: 'GET', path: '/', status: 200, ms: 1 });
      log.logger.info({ i }, 'something');
    }
    log.flush(); // synchronous: returns (pino's destination retried this write forever)
    // asynchronous: called back from the failed write's own callback, so that has run, and emitted nothing (an
    // 'error' emitted with no listener would fail the run)
    await new Promise<void>((resolve) => log.logger.flush(() => resolve()));

    const file = new LogFile('/dev/full', 1024, 64 * 1024);
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 2000; i++) file.write(line); // 200 KB into a 64 KiB buffer
    await new Promise<void>((resolve) => file.flush(() => resolve()));
    expect(file.droppedLines).toBeGreaterThan(2000 - (64 * 1024) / 100 - 1);
    file.flushSync();
    file.end();
  });
});
