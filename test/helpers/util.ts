// Shared assertions and small helpers of the tests: error bodies, ids, a closed port, a limiter.
import { createServer } from 'node:net';
import { expect } from 'vitest';
import type { HttpResult } from './server.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const CLIENT_SECRET = /^cs_[0-9A-Za-z]{48}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const REQUEST_ID = /^req_[0-9A-Za-z]+$/;

/**
 * The contract's error body (docs/api.md "Errors"): exactly `{error: {type, code, message, param?, request_id, …}}`,
 * with `request_id` equal to the `Request-Id` header.
 */
export function expectError(res: HttpResult, status: number, type: string, code: string, param?: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { error: { type, code } } });
  expect(Object.keys(res.body)).toEqual(['error']);
  const e = res.body.error;
  for (const k of Object.keys(e))
    expect(['type', 'code', 'message', 'param', 'request_id', 'decline_code', 'payment_id']).toContain(k);
  expect(typeof e.message).toBe('string');
  expect(e.message.length).toBeGreaterThan(0);
  expect(e.message).not.toMatch(/\n\s+at /); // never a stack trace
  expect(e.request_id).toMatch(REQUEST_ID);
  expect(res.headers.get('request-id')).toBe(e.request_id);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  if (param !== undefined) expect(e.param).toBe(param);
}

/** A loopback port with nothing listening on it (bound, then released). */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * At most `n` of the wrapped calls run at once (a file's CLI processes: its tests may run concurrently to
 * use both cores, but never more than `n` processes at a time).
 */
export function limiter(n: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over
    else active++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
