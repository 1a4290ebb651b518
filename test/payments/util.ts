// Helpers of the payments suite: sessions, confirms with the client secret, the test clock.
import type { TestServer } from '../helpers/server.js';
import type { ClockState } from '../../dist/lib/contract/meta.js';
export { expectError, UUID } from '../helpers/util.js';

export async function newSession(s: TestServer, body: Record<string, unknown> = {}) {
  const r = await s.request('POST', '/create-session', { body: { amount: 5000, currency: 'usd', ...body } });
  if (r.status !== 201) throw new Error(`create-session: ${r.status} ${r.text}`);
  return r.body as { id: string; client_secret: string; fallback_url: string; [k: string]: any };
}

export function confirm(
  s: TestServer,
  session: { id: string; client_secret: string },
  body: Record<string, unknown>,
  headers?: Record<string, string>,
) {
  return s.request('POST', `/confirm-payment/${session.id}`, { body, key: session.client_secret, headers });
}

export async function sessionStatus(s: TestServer, id: string): Promise<string> {
  return (await s.request('GET', `/sessions/${id}`)).body.status;
}

export async function advance(s: TestServer, seconds: number) {
  const r = await s.request<ClockState>('POST', '/test-helpers/advance-clock', { body: { seconds } });
  if (r.status !== 200) throw new Error(`advance-clock: ${r.status} ${r.text}`);
  return r.body;
}
