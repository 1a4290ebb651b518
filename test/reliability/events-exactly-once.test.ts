// The event log holds exactly one event per committed change: under 40-way concurrency with requests that fail
// inside the same group-commit batches (a 409 makes the batch run its other requests again) and across kill -9,
// the events after restart match the objects after restart one for one — none for a change that was undone or
// never committed, none missing for one that did.
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { startChild, type Child } from './child.js';

async function call(
  c: Child,
  method: string,
  path: string,
  body?: unknown,
  key = c.apiKey,
): Promise<{ status: number; body: any }> {
  const res = await fetch(c.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function all(c: Child, path: string): Promise<any[]> {
  const out: any[] = [];
  let after: string | undefined;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await call(c, 'GET', `${path}${sep}limit=100${after ? `&starting_after=${after}` : ''}`);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.data);
    if (!r.body.has_more) return out;
    after = r.body.data.at(-1).id;
  }
}

const count = <T>(xs: T[], key: (x: T) => string) => {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
};

describe('events: exactly once', () => {
  it(
    'after concurrent writes, failing neighbours and kill -9, every committed change has exactly one event and no event lacks its change',
    { timeout: 120_000 },
    async () => {
      const dir = tempDir();
      let child = await startChild(dir);
      let stop = false;
      let confirmed = 0;
      const worker = async (w: number) => {
        while (!stop) {
          try {
            const s = await call(child, 'POST', '/create-session', { amount: 1000 + w, currency: 'usd' });
            if (s.status !== 201) continue;
            // a declined card (failed payment, committed) every third time, else a card that captures
            const token = w % 3 === 0 ? 'tok_chargeDeclined' : 'tok_visa';
            const body = { payment_method_type: 'card', token_id: token };
            // two confirms of the same session at once: one wins, the other fails (409) in the same batch
            const [a, b] = await Promise.all([
              call(child, 'POST', `/confirm-payment/${s.body.id}`, body, s.body.client_secret),
              call(child, 'POST', `/confirm-payment/${s.body.id}`, body, s.body.client_secret),
            ]);
            if (a.status === 200 || b.status === 200) confirmed++;
          } catch {
            return; // the server was killed
          }
        }
      };
      const workers = Array.from({ length: 40 }, (_, w) => worker(w));
      while (confirmed < 150) await new Promise((r) => setTimeout(r, 20));
      await child.kill9();
      stop = true;
      await Promise.all(workers);

      child = await startChild(dir);
      try {
        const sessions = await all(child, '/sessions');
        const payments = await all(child, '/payments');
        const events = await all(child, '/events');
        expect(sessions.length).toBeGreaterThan(150);

        const byObjectAndType = count(events, (e) => `${e.data.object.id} ${e.type}`);
        // a captured payment's ledger posting records its own events (journal_entry.created, and the system accounts' ledger_account.created)
        const ledger = [...(await all(child, '/journal-entries')), ...(await all(child, '/ledger-accounts'))];
        const ids = new Set([...sessions.map((s) => s.id), ...payments.map((p) => p.id), ...ledger.map((x) => x.id)]);
        // no event for an object that does not exist (a change undone, or lost with the crash)
        expect(events.filter((e) => !ids.has(e.data.object.id)).map((e) => e.type)).toEqual([]);
        // exactly one event per change
        expect([...byObjectAndType].filter(([, n]) => n !== 1)).toEqual([]);
        const missing: string[] = [];
        for (const s of sessions) {
          if (!byObjectAndType.has(`${s.id} payment_session.created`)) missing.push(`${s.id} created`);
          if (s.status === 'succeeded' && !byObjectAndType.has(`${s.id} payment_session.succeeded`))
            missing.push(`${s.id} succeeded`);
          if (s.status === 'failed' && !byObjectAndType.has(`${s.id} payment_session.failed`))
            missing.push(`${s.id} failed`);
        }
        for (const p of payments)
          if (!byObjectAndType.has(`${p.id} payment.${p.status}`)) missing.push(`${p.id} payment.${p.status}`);
        for (const x of ledger)
          if (!byObjectAndType.has(`${x.id} ${x.object}.created`)) missing.push(`${x.id} ${x.object}.created`);
        expect(missing).toEqual([]);
        // and the other way round: each event's object is in the state its (last) event says
        const sessionStatus = new Map(sessions.map((s) => [s.id, s.status]));
        for (const e of events) {
          if (e.type === 'payment_session.succeeded') expect(sessionStatus.get(e.data.object.id)).toBe('succeeded');
          if (e.type === 'payment_session.failed') expect(sessionStatus.get(e.data.object.id)).toBe('failed');
        }
        expect(payments.filter((p) => p.status === 'failed').length).toBeGreaterThan(0);
      } finally {
        await child.stop();
      }
    },
  );
});
