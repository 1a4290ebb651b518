// Several server processes on one PostgreSQL database behave as one server (README "A shared sandbox"): a write
// answered by one is read by the next request on another; an Idempotency-Key sent to two at once has one effect;
// a clock advanced by two at once runs each due item once; kill -9 of one process under concurrent writers loses no
// acknowledged write and the other keeps answering; a PostgreSQL restart gives 503 storage_unavailable with
// Retry-After while it is down (never a hang or a 500), and the processes reconnect by themselves.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { postgresServer } from '../helpers/postgres.js';
import { sandboxes } from './sandbox.js';
import type { Child } from '../reliability/child.js';
import { ledgerViolations, listAll, requester, type Requester } from '../reliability/health.js';
import { startReceiver, until } from '../webhooks/receiver.js';

const pg = postgresServer();

// The first start migrates and makes the default account; the others start at once after it, racing each other.
const { sandbox: start, startProcess } = sandboxes(pg);
const sandbox = (n: number, options: object = {}) => start(n, options, { race: true });

const reqOf = (c: Child): Requester => requester(c.baseUrl, c.apiKey);

describe.skipIf(pg.missing !== '')(
  `server processes on one database${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    it('agree on one default account and key, and see each other’s writes at once', { timeout: 60_000 }, async () => {
      const { procs } = await sandbox(3, { publicUrl: 'https://sandbox.example.test' });
      expect(new Set(procs.map((p) => p.apiKey)).size).toBe(1);
      const [a, b, c] = procs.map(reqOf) as [Requester, Requester, Requester];
      for (let i = 0; i < 10; i++) {
        const made = await a('POST', '/create-session', { body: { amount: 100 + i, currency: 'usd' } });
        expect(made.status).toBe(201);
        const seen = await b('GET', `/sessions/${made.body.id}`);
        expect(seen.status).toBe(200);
        // The same session, byte for byte: its hosted page is at the sandbox's public address, not a process's own.
        expect(seen.body).toEqual(made.body);
        expect(made.body.fallback_url).toMatch(/^https:\/\/sandbox\.example\.test\/functions\/v1\/pay\//);
        const listed = await c('GET', '/sessions?limit=1');
        expect(listed.body.data[0].id).toBe(made.body.id);
      }
    });

    it('refuses a process given another sealing key, naming no key', { timeout: 60_000 }, async () => {
      const { url } = await sandbox(1);
      const other = randomBytes(32).toString('hex');
      const err = await startProcess({ database: url, sealingKey: other }).then(
        () => '',
        (e: Error) => e.message,
      );
      expect(err).toMatch(/sealed with another key/);
      expect(err).not.toContain(other);
    });

    it('an Idempotency-Key sent to two processes at once has one effect', { timeout: 60_000 }, async () => {
      const { procs } = await sandbox(2);
      const [a, b] = procs.map(reqOf) as [Requester, Requester];
      const keys = Array.from({ length: 30 }, (_, i) => `race-${i}-${randomBytes(4).toString('hex')}`);
      for (const key of keys) {
        const body = { amount: 500, currency: 'usd', external_id: key };
        const headers = { 'idempotency-key': key };
        const rs = await Promise.all([
          a('POST', '/create-session', { body, headers }),
          b('POST', '/create-session', { body, headers }),
        ]);
        const created = rs.filter((r) => r.status === 201);
        expect(created.length).toBeGreaterThanOrEqual(1);
        for (const r of created) expect(r.body).toEqual(created[0]!.body);
        for (const r of rs.filter((x) => x.status !== 201)) {
          expect(r.status).toBe(409);
          expect(r.body.error.code).toBe('idempotency_key_in_use');
        }
        expect((await a('GET', `/sessions?external_id=${key}`)).body.total_count).toBe(1);
      }
    });

    it('a clock advanced by two processes at once runs each renewal once', { timeout: 120_000 }, async () => {
      const { procs } = await sandbox(2, { dueWorkIntervalMs: 0 });
      const [a, b] = procs.map(reqOf) as [Requester, Requester];
      const cus = (
        await a('POST', '/customers', { body: { email: 'c@example.com', default_payment_method: 'tok_visa' } })
      ).body;
      const product = (await a('POST', '/products', { body: { name: 'Plan' } })).body;
      const price = (
        await a('POST', '/prices', {
          body: { product: product.id, currency: 'usd', unit_amount: 1200, recurring: { interval: 'month' } },
        })
      ).body;
      const subs: string[] = [];
      for (let i = 0; i < 8; i++)
        subs.push(
          (await b('POST', '/subscriptions', { body: { customer: cus.id, items: [{ price: price.id }] } })).body.id,
        );
      const target = (await a('GET', '/test-helpers/clock')).body.now + 184 * 86_400;
      const [ra, rb] = await Promise.all([
        a('POST', '/test-helpers/advance-clock', { body: { to: target } }),
        b('POST', '/test-helpers/advance-clock', { body: { to: target } }),
      ]);
      expect(ra.status, ra.text).toBe(200);
      expect(rb.status, rb.text).toBe(200);
      // Both processes read the same clock afterwards.
      expect((await a('GET', '/test-helpers/clock')).body.now).toBe(target);
      expect((await b('GET', '/test-helpers/clock')).body.now).toBe(target);
      const recent: string[] = [];
      for (const id of subs) {
        const invoices = await listAll(a, `/invoices?subscription=${id}`);
        const periods = new Set(invoices.map((i: any) => i.period_start));
        expect(periods.size).toBe(invoices.length); // no period invoiced twice
        expect(invoices).toHaveLength(7); // the first, and six renewals
        // The log keeps 30 days (docs/api.md "Events"): the last renewal's invoices are in it.
        recent.push(...invoices.filter((i: any) => i.created > target - 25 * 86_400).map((i: any) => i.id));
      }
      expect(recent.length).toBeGreaterThanOrEqual(subs.length);
      // Each renewal recorded its events once: one invoice.created per invoice, none twice.
      const created = (await listAll(a, '/events?type=invoice.created')).map((e: any) => e.data.object.id);
      expect(new Set(created).size).toBe(created.length);
      for (const id of recent) expect(created).toContain(id);
      expect(await ledgerViolations(a)).toEqual([]);
    });

    it(
      'kill -9 of one process under concurrent writers loses no acknowledged write',
      { timeout: 120_000 },
      async () => {
        const { procs } = await sandbox(2);
        const [victim, survivor] = [procs[0]!, procs[1]!];
        const acknowledged: string[] = [];
        let stop = false;
        const writer = async (c: Child) => {
          const req = reqOf(c);
          while (!stop) {
            try {
              const r = await req('POST', '/create-session', { body: { amount: 100, currency: 'usd' } });
              if (r.status === 201) acknowledged.push(r.body.id);
            } catch {
              if (c === victim) return; // its socket went with it
              throw new Error('the surviving process stopped answering');
            }
          }
        };
        const writers = [writer(victim), writer(victim), writer(survivor), writer(survivor)];
        while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 5));
        await victim.kill9();
        const atKill = acknowledged.length;
        while (acknowledged.length < atKill + 30) await new Promise((r) => setTimeout(r, 5));
        stop = true;
        await Promise.all(writers);
        const req = reqOf(survivor);
        for (const id of acknowledged) expect((await req('GET', `/sessions/${id}`)).status).toBe(200);
        expect((await req('GET', '/sessions?limit=1')).body.total_count).toBeGreaterThanOrEqual(acknowledged.length);
      },
    );

    it(
      'a PostgreSQL restart: 503 storage_unavailable with Retry-After while it is down, then served again',
      { timeout: 120_000 },
      async () => {
        const { procs } = await sandbox(2);
        const reqs = procs.map(reqOf);
        for (const req of reqs)
          expect((await req('POST', '/create-session', { body: { amount: 100, currency: 'usd' } })).status).toBe(201);
        for (const mode of ['fast', 'immediate'] as const) {
          pg.stop(mode);
          try {
            for (const c of procs) {
              const send = () =>
                fetch(`${c.baseUrl}/create-session`, {
                  method: 'POST',
                  headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/json' },
                  body: JSON.stringify({ amount: 100, currency: 'usd' }),
                  signal: AbortSignal.timeout(20_000),
                });
              // A keep-alive socket of the pool found closed ('other side closed', once in CI as PostgreSQL stopped; not
              // reproduced in ~20 runs since) is sent again once: what is asserted is the server's answer, which must
              // still be the 503 below (a process that died would refuse the second send too).
              const res = await send().catch((err: Error) => {
                console.warn(`multiprocess: a socket of the pool failed (${err.message}); sent once more`);
                return send();
              });
              expect(res.status, await res.clone().text()).toBe(503);
              expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
              expect(((await res.json()) as { error: { code: string } }).error.code).toBe('storage_unavailable');
            }
          } finally {
            pg.start();
          }
          // Reconnected by themselves: the next requests are served (a request may still meet a connection the
          // restart closed — 503, retried by any client that honours Retry-After).
          const made: { id: string; fallback_url: string }[] = [];
          for (const req of reqs) {
            let r = await req('POST', '/create-session', { body: { amount: 100, currency: 'usd' } });
            for (let i = 0; r.status === 503 && i < 20; i++) {
              await new Promise((res) => setTimeout(res, 100));
              r = await req('POST', '/create-session', { body: { amount: 100, currency: 'usd' } });
            }
            expect(r.status).toBe(201);
            made.push(r.body);
          }
          // What each process wrote after the restart is read through the other, as it was answered (but for the
          // hosted page's address: each process is its own without a public URL).
          for (const [i, session] of made.entries()) {
            const seen = await reqs[(i + 1) % reqs.length]!('GET', `/sessions/${session.id}`);
            expect(seen.status).toBe(200);
            expect({ ...seen.body, fallback_url: '' }).toEqual({ ...session, fallback_url: '' });
          }
        }
      },
    );

    it(
      'a process killed while it holds deliveries: another takes them over and delivers every event, in order',
      { timeout: 120_000 },
      async () => {
        const rx = await startReceiver('hang');
        try {
          // Only `holder` runs while the endpoint is made: it claims the endpoint, and its first POST hangs.
          const { url, key, procs } = await sandbox(1, { webhooks: { timeoutMs: 120_000 } });
          const holder = procs[0]!;
          const req = reqOf(holder);
          const we = await req('POST', '/webhook-endpoints', {
            body: { url: rx.url, enabled_events: ['payment_session.created'] },
          });
          expect(we.status).toBe(201);
          for (let i = 0; i < 5; i++)
            expect((await req('POST', '/create-session', { body: { amount: 100 + i, currency: 'usd' } })).status).toBe(
              201,
            );
          await rx.waitFor(1); // the holder's first POST is open
          const other = await startProcess({ database: url, sealingKey: key });
          rx.answer = 200;
          await holder.kill9();
          const events = (await listAll(reqOf(other), '/events?type=payment_session.created')).reverse();
          expect(events).toHaveLength(5);
          // The other process takes the endpoint over once the holder's lease has run out, and delivers all five.
          const got = await until(
            async () => {
              const seen = new Set(rx.received.slice(1).map((r) => r.headers['x-payorch-event-id']));
              return seen.size >= events.length ? rx.received.slice(1) : undefined;
            },
            'every event delivered by the other process',
            60_000,
          );
          // In event order (the one cut short first, again: receivers dedupe by event id).
          const firsts = [...new Set(got.map((r) => r.headers['x-payorch-event-id'] as string))];
          expect(firsts).toEqual(events.map((e: any) => e.id));
          for (const e of events)
            await until(
              async () =>
                (await reqOf(other)('GET', `/events/${e.id}/deliveries`)).body.data[0]?.status === 'succeeded'
                  ? true
                  : undefined,
              `the delivery of ${e.id} recorded as succeeded`,
              30_000,
            );
        } finally {
          await rx.close();
        }
      },
    );

    it(
      'a snapshot saved through one process is restored through another, for every process at once',
      { timeout: 60_000 },
      async () => {
        const { procs } = await sandbox(2);
        const [a, b] = procs.map(reqOf) as [Requester, Requester];
        const kept = (await a('POST', '/create-session', { body: { amount: 100, currency: 'usd' } })).body.id as string;
        expect((await a('POST', '/test-helpers/snapshots', { body: { name: 'base' } })).status).toBe(201);
        expect((await b('GET', '/test-helpers/snapshots')).body.data.map((x: any) => x.name)).toEqual(['base']);
        const gone = (await b('POST', '/create-session', { body: { amount: 200, currency: 'usd' } })).body.id as string;
        expect((await a('GET', `/sessions/${gone}`)).status).toBe(200);
        const restored = await b('POST', '/test-helpers/snapshots/base/restore');
        expect(restored.status, restored.text).toBe(200);
        for (const req of [a, b]) {
          expect((await req('GET', `/sessions/${gone}`)).status).toBe(404);
          expect((await req('GET', `/sessions/${kept}`)).status).toBe(200);
          expect((await req('GET', '/sessions?limit=1')).body.total_count).toBe(1);
        }
      },
    );
  },
);
