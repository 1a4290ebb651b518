// Deliveries survive the server: a POST cut short by a stop (or a kill -9) is sent again by the next server on the
// same data directory, and events another process wrote (the CLI's embedded default) are delivered by the poll.
// Meanwhile a hanging receiver never delays API requests: they are answered while its POST is provably open.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openEmbedded } from '../../dist/index.js';
import { verifyWebhook } from '../../dist/webhooks.js';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { newSession } from '../payments/util.js';
import { startReceiver, until } from './receiver.js';
import { onSqlite } from '../helpers/engine.js';

/** A POST through the CLI's embedded default on `dataDir` (another process's server, in this one), closed after. */
async function postEmbedded(
  dataDir: string,
  path: string,
  payload: object,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const embedded = await openEmbedded(dataDir);
  try {
    const r = await embedded.app.inject({
      method: 'POST',
      url: `/functions/v1${path}`,
      headers: { authorization: `Bearer ${embedded.apiKey}`, 'content-type': 'application/json' },
      payload,
    });
    return { status: r.statusCode, body: r.json() };
  } finally {
    await embedded.close();
  }
}

async function eventOf(s: TestServer, objectId: string): Promise<string> {
  return (await s.request('GET', `/events?object_id=${objectId}&type=payment_session.created`)).body.data[0].id;
}

describe('deliveries across restarts', () => {
  it('a hanging receiver delays no request; a stop aborts its POST, which the next server sends again, then the rest in order', async () => {
    const dataDir = tempDir();
    const rx = await startReceiver('hang');
    let s = await startTestServer({ dataDir, webhooks: { timeoutMs: 120_000 } });
    let secret = '';
    const expected: string[] = [];
    try {
      const we = await s.request('POST', '/webhook-endpoints', {
        body: { url: rx.url, enabled_events: ['payment_session.created'] },
      });
      secret = we.body.secret;
      const first = await newSession(s);
      expected.push(await eventOf(s, first.id));
      const [open] = await rx.waitFor(1);

      // While that POST is open (the receiver has it and has not answered), requests are answered: writes that
      // record events (each queued for the same endpoint) and reads.
      const writes = await Promise.all(Array.from({ length: 20 }, () => newSession(s)));
      const reads = await Promise.all(Array.from({ length: 20 }, () => s.request('GET', '/events?limit=5')));
      expect(reads.every((r) => r.status === 200)).toBe(true);
      // In the event log's order: the writes ran at once, and an engine that commits them concurrently
      // (PostgreSQL) numbers their events in the order they committed, not the order they were sent.
      const ours = new Set<string>();
      for (const w of writes) ours.add(await eventOf(s, w.id));
      const log = (await s.request('GET', '/events?type=payment_session.created&limit=100')).body.data as {
        id: string;
      }[];
      expected.push(
        ...log
          .map((e) => e.id)
          .reverse()
          .filter((id) => ours.has(id)),
      );
      expect(expected).toHaveLength(1 + writes.length);
      expect(open!.closed).toBe(false);
      expect(rx.received).toHaveLength(1); // one POST in flight per endpoint: the rest wait their turn
      const row = (await s.request('GET', `/events/${expected[0]}/deliveries`)).body.data[0];
      expect(row).toMatchObject({ status: 'pending', attempts: 0 });

      await s.close(); // aborts the POST in flight; its row stays pending
      await until(async () => (open!.closed ? true : undefined), 'the aborted POST closed');
      rx.answer = 200;
      s = await startTestServer({ dataDir });
      const got = await rx.waitFor(1 + expected.length);
      // the cut-short delivery again (same event: receivers dedupe by id), then every other event once, in order
      expect(got.slice(1).map((r) => r.headers['x-payorch-event-id'])).toEqual(expected);
      for (const r of got)
        expect(verifyWebhook(r.body, r.headers['x-payorch-signature'] as string, secret).type).toBe(
          'payment_session.created',
        );
      const d = await until(async () => {
        const x = (await s.request('GET', `/events/${expected[0]}/deliveries`)).body.data[0];
        return x.status === 'succeeded' ? x : undefined;
      }, 'the first delivery recorded');
      expect(d).toMatchObject({ attempts: 1, last_response_code: 200 });
    } finally {
      await s.close();
      await rx.close();
    }
  });

  it.runIf(onSqlite)(
    'a server that has seen no endpoint learns of one another process created (by the poll) and delivers what follows',
    async () => {
      const dataDir = tempDir();
      const rx = await startReceiver(200);
      let scansWithoutEndpoint = 0;
      const s = await startTestServer({
        dataDir,
        webhooks: { onScan: ({ endpoints }) => void (endpoints === 0 && scansWithoutEndpoint++) },
      });
      try {
        await newSession(s);
        // The dispatcher has looked at the events and found no endpoint anywhere: later events are not looked at
        // until the poll.
        await until(async () => (scansWithoutEndpoint > 0 ? true : undefined), 'a scan that found no endpoint');
        const r = await postEmbedded(dataDir, '/webhook-endpoints', {
          url: rx.url,
          enabled_events: ['payment_session.created'],
        });
        expect(r.status).toBe(201);
        const secret = r.body.secret as string;
        const after = await newSession(s);
        const [got] = await rx.waitFor(1);
        const e = verifyWebhook(got!.body, got!.headers['x-payorch-signature'] as string, secret);
        expect(e.data.object.id).toBe(after.id);
      } finally {
        await s.close();
        await rx.close();
      }
    },
  );

  it.runIf(onSqlite)(
    'delivers events another process wrote to the same database (the CLI’s embedded default), found by the poll',
    async () => {
      const dataDir = tempDir();
      const rx = await startReceiver(200);
      const s = await startTestServer({ dataDir });
      try {
        const we = await s.request('POST', '/webhook-endpoints', {
          body: { url: rx.url, enabled_events: ['payment_session.created'] },
        });
        const r = await postEmbedded(dataDir, '/create-session', { amount: 700, currency: 'usd' });
        expect(r.status).toBe(201);
        const sessionId = r.body.id as string;
        const [got] = await rx.waitFor(1);
        const e = verifyWebhook(got!.body, got!.headers['x-payorch-signature'] as string, we.body.secret);
        expect(e.data.object.id).toBe(sessionId);
        await until(
          async () =>
            (await s.request('GET', `/events/${e.id}/deliveries`)).body.data[0]?.status === 'succeeded'
              ? true
              : undefined,
          'the delivery recorded',
        );
      } finally {
        await s.close();
      }
      // With no server running, the embedded default records the event but sends nothing (it lives for one
      // command): no delivery row; the next server start sends it.
      const embedded = await openEmbedded(dataDir);
      const auth = { authorization: `Bearer ${embedded.apiKey}`, 'content-type': 'application/json' };
      let embeddedSessionId: string;
      let embeddedEventId: string;
      try {
        const r = await embedded.app.inject({
          method: 'POST',
          url: '/functions/v1/create-session',
          headers: auth,
          payload: { amount: 800, currency: 'usd' },
        });
        expect(r.statusCode).toBe(201);
        embeddedSessionId = r.json().id;
        const ev = (
          await embedded.app.inject({
            method: 'GET',
            url: `/functions/v1/events?object_id=${embeddedSessionId}`,
            headers: auth,
          })
        ).json().data;
        expect(ev.map((x: { type: string }) => x.type)).toEqual(['payment_session.created']);
        embeddedEventId = ev[0].id;
        const rows = (
          await embedded.app.inject({
            method: 'GET',
            url: `/functions/v1/events/${ev[0].id}/deliveries`,
            headers: auth,
          })
        ).json();
        expect(rows.total_count).toBe(0);
      } finally {
        await embedded.close();
      }
      // Closed, the embedded default has nothing left to run: still no delivery row, and nothing was sent.
      const deliveriesOf = (db: Database.Database, event: string) =>
        (db.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE event = ?').get(event) as { n: number }).n;
      const db = new Database(join(dataDir, 'payorch.db'), { readonly: true });
      try {
        expect(deliveriesOf(db, embeddedEventId)).toBe(0);
      } finally {
        db.close();
      }
      expect(rx.received).toHaveLength(1);
      const s2 = await startTestServer({ dataDir });
      try {
        const [, got] = await rx.waitFor(2);
        expect(JSON.parse(got!.body).data.object.id).toBe(embeddedSessionId);
        expect(deliveriesOf(sqliteOf(s2).db, embeddedEventId)).toBe(1); // the row the next server wrote
      } finally {
        await s2.close();
        await rx.close();
      }
    },
  );

  // A server process of its own on the data directory's SQLite file (on PostgreSQL, test/postgres/multiprocess.test.ts
  // kills a process holding deliveries and another takes them over).
  it.runIf(onSqlite)('after kill -9 of a server with a POST in flight, the next server sends it again', async () => {
    const dataDir = tempDir();
    const rx = await startReceiver('hang');
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL('../reliability/child-server.mjs', import.meta.url)), dataDir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let s: TestServer | undefined;
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
      });
      const { baseUrl, apiKey } = JSON.parse(line) as { baseUrl: string; apiKey: string };
      const call = async (method: string, path: string, body?: unknown) => {
        const r = await fetch(baseUrl + path, {
          method,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return (await r.json()) as any;
      };
      const we = await call('POST', '/webhook-endpoints', { url: rx.url, enabled_events: ['payment_session.created'] });
      const session = await call('POST', '/create-session', { amount: 900, currency: 'usd' });
      const [first] = await rx.waitFor(1);
      expect(first!.closed).toBe(false);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      rx.answer = 200;
      s = await startTestServer({ dataDir });
      const [, again] = await rx.waitFor(2);
      expect(again!.headers['x-payorch-event-id']).toBe(first!.headers['x-payorch-event-id']);
      expect(
        verifyWebhook(again!.body, again!.headers['x-payorch-signature'] as string, we.secret).data.object.id,
      ).toBe(session.id);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await s?.close();
      await rx.close();
    }
  });
});
