// Client secrets (docs/api.md "Conventions"): derived from the session id under the data directory's key, never stored;
// sessions stored before that (secret sealed, with its hash) keep working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { sha256 } from '../../dist/lib/server/crypto.js';
import { allRoutes } from '../../dist/lib/server/routes/index.js';
import { clientSecretNaming, clientSecretParts } from '../../dist/lib/server/ids.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const config = (id: string, secret: string) => s.request('GET', `/get-session-config/${id}`, { key: secret });
const storedRow = (id: string) =>
  sqliteOf(s).db.prepare('SELECT secret_hash, data FROM payment_sessions WHERE id = ?').get(id) as {
    secret_hash: string;
    data: string;
  };

describe('client secrets', () => {
  it.runIf(onSqlite)(
    'are cs_ + 48 base62, the same on every retrieve, work only for their own session, and are not stored',
    async () => {
      const a = (await s.request('POST', '/create-session', { body: { amount: 500, currency: 'usd' } })).body;
      const b = (await s.request('POST', '/create-session', { body: { amount: 500, currency: 'usd' } })).body;
      expect(a.client_secret).toMatch(/^cs_[0-9A-Za-z]{48}$/);
      expect(a.client_secret).not.toBe(b.client_secret);
      expect((await s.request('GET', `/sessions/${a.id}`)).body.client_secret).toBe(a.client_secret);
      expect((await config(a.id, a.client_secret)).status).toBe(200);
      expect((await config(a.id, b.client_secret)).status).toBe(401);
      expect(
        (await config(a.id, a.client_secret.slice(0, -1) + (a.client_secret.endsWith('A') ? 'B' : 'A'))).status,
      ).toBe(401);
      // A well-formed secret that names session a but carries b's MAC (or a MAC one bit off) is refused, with
      // the session in the path or without it (the secret alone names the session).
      const macOfB = clientSecretParts(b.client_secret)!.mac;
      const forged = clientSecretNaming(a.id, macOfB);
      const flipped = Buffer.from(clientSecretParts(a.client_secret)!.mac);
      flipped[18]! ^= 1;
      for (const secret of [forged, clientSecretNaming(a.id, flipped)]) {
        expect(clientSecretParts(secret)!.sessionId).toBe(a.id);
        expect((await config(a.id, secret)).status).toBe(401);
        expect((await s.request('POST', '/get-session-config', { key: secret })).status).toBe(401);
      }
      expect((await s.request('POST', '/get-session-config', { key: a.client_secret })).status).toBe(200);
      const row = storedRow(a.id);
      expect(row.data).not.toContain(a.client_secret.slice(3));
      expect(row.secret_hash).not.toBe(sha256(a.client_secret));
    },
  );

  it.runIf(onSqlite)(
    'a session stored with a sealed secret (earlier versions) keeps that secret for retrieve and authentication',
    async () => {
      const created = (await s.request('POST', '/create-session', { body: { amount: 700, currency: 'eur' } })).body;
      const old = `cs_${'Old0'.repeat(12)}`;
      const { sealer } = s.server.services;
      const store = sqliteOf(s);
      const doc = JSON.parse(storedRow(created.id).data);
      store.db
        .prepare('UPDATE payment_sessions SET secret_hash = ?, data = ? WHERE id = ?')
        .run(
          sha256(old),
          JSON.stringify({ ...doc, client_secret_sealed: sealer.seal(old), client_secret_hash: sha256(old) }),
          created.id,
        );

      expect((await s.request('GET', `/sessions/${created.id}`)).body.client_secret).toBe(old);
      expect((await config(created.id, old)).status).toBe(200);
      expect((await config(created.id, created.client_secret)).status).toBe(401); // the derived one is not this session's secret
    },
  );
});

describe('saved for idempotent replays', () => {
  const savedRow = (key: string) =>
    sqliteOf(s).db.prepare('SELECT status, body FROM idempotency_keys WHERE key = ?').get(key) as {
      status: number;
      body: string | Buffer;
    };
  const withKey = (method: 'POST' | 'PATCH', path: string, key: string, body: unknown) =>
    s.request(method, path, { body, headers: { 'idempotency-key': key } });

  it.runIf(onSqlite)(
    'a session response is saved without its client secret, in clear, and replayed byte for byte with it',
    async () => {
      const key = `cs-replay-${Date.now()}`;
      const first = await withKey('POST', '/create-session', key, {
        amount: 1200,
        currency: 'usd',
        metadata: { order: '7' },
      });
      expect(first.status).toBe(201);
      const row = savedRow(key);
      expect(typeof row.body).toBe('string'); // JSON text, not sealed bytes
      expect(row.body).not.toContain(first.body.client_secret.slice(3));
      // create's record names its creation event, whose object is the answer (docs/api.md "Idempotency")
      const created = (await s.request('GET', `/events?object_id=${first.body.id}&type=payment_session.created`)).body
        .data[0];
      expect(JSON.parse(row.body as string)).toEqual({ replay_from_event: created.id, object_id: first.body.id });

      const again = await withKey('POST', '/create-session', key, {
        amount: 1200,
        currency: 'usd',
        metadata: { order: '7' },
      });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);

      // update and cancel answer a session too
      for (const [method, path, body] of [
        ['PATCH', `/sessions/${first.body.id}`, { amount: 1300 }],
        ['POST', `/sessions/${first.body.id}/cancel`, {}],
      ] as const) {
        const k = `${key}-${method}`;
        const done = await withKey(method, path, k, body);
        expect(done.status).toBe(200);
        expect(savedRow(k).body).not.toContain(first.body.client_secret.slice(3));
        const { client_secret: _doneSecret, ...answer } = done.body;
        expect(JSON.parse(savedRow(k).body as string)).toEqual(answer); // the answer, without its secret
        const replay = await withKey(method, path, k, body);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.text).toBe(done.text);
      }
    },
  );

  it('strip removes the secret whatever the order of the members (the fast path cuts the last one off the text)', () => {
    const { saved } = allRoutes.find((r) => r.operationId === 'updateSession')!;
    const ctx = { accountId: 'acct_strip', services: s.server.services };
    const session = { id: 'x', amount: 5, client_secret: 'cs_secret"\\value' };
    const secretLast = JSON.stringify(session);
    expect(JSON.parse(saved!.strip(session, secretLast, ctx))).toEqual({ id: 'x', amount: 5 });
    const secretFirst = JSON.stringify({ client_secret: session.client_secret, id: 'x', amount: 5 });
    const stripped = saved!.strip(session, secretFirst, ctx);
    expect(stripped).not.toContain('cs_secret');
    expect(JSON.parse(stripped)).toEqual({ id: 'x', amount: 5 });
  });

  it.runIf(onSqlite)(
    'responses saved sealed by earlier versions, and sessions whose secret is sealed, replay their own secret',
    async () => {
      const key = `cs-old-${Date.now()}`;
      const first = await withKey('POST', '/create-session', key, { amount: 900, currency: 'usd' });
      const { sealer } = s.server.services;
      const store = sqliteOf(s);
      // as an earlier version saved it: the whole response, sealed
      store.db.prepare('UPDATE idempotency_keys SET body = ? WHERE key = ?').run(sealer.sealBytes(first.text), key);
      expect((await withKey('POST', '/create-session', key, { amount: 900, currency: 'usd' })).text).toBe(first.text);

      // a session from before derived secrets, replayed from a response saved without the secret
      const old = `cs_${'Seal'.repeat(12)}`;
      const doc = JSON.parse(storedRow(first.body.id).data);
      store.db
        .prepare('UPDATE payment_sessions SET secret_hash = ?, data = ? WHERE id = ?')
        .run(
          sha256(old),
          JSON.stringify({ ...doc, client_secret_sealed: sealer.seal(old), client_secret_hash: sha256(old) }),
          first.body.id,
        );
      const { client_secret: _secret, ...rest } = first.body;
      store.db.prepare('UPDATE idempotency_keys SET body = ? WHERE key = ?').run(JSON.stringify(rest), key);
      expect((await withKey('POST', '/create-session', key, { amount: 900, currency: 'usd' })).body.client_secret).toBe(
        old,
      );
    },
  );
});
