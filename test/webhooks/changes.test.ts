// The dispatcher hears of a change to a webhook endpoint from that change's own transaction, once it has committed
// (domain/webhooks/area.ts onChanged, store/scoped.ts frames), whatever other transactions are open or commit
// meanwhile. Before, it took the next COMMIT after its own scan began for the scan's (`ownWrite`): on PostgreSQL,
// where a request commits while the scan is open, a request's endpoint changes could wait for some later COMMIT.
// On PostgreSQL only (npm run test:postgres): on SQLite a transaction's work holds the one connection, so no request
// commits while another transaction is open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true, dueWorkIntervalMs: 0 });
});
afterAll(() => s.close());

describe('webhook endpoint changes reach the dispatcher', () => {
  it.skipIf(onSqlite)(
    'from their own COMMIT, while the dispatcher’s transaction is still open, and from nothing else',
    async () => {
      const { services } = s.server;
      const told: (string | undefined)[] = [];
      services.webhooks.onChanged((endpointId) => told.push(endpointId));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let scanning!: () => void;
      const scanned = new Promise<void>((resolve) => (scanning = resolve));
      // The dispatcher's scan, held open.
      const scan = services.store.alone(async () => {
        await services.webhooks.deliveries.scan();
        scanning();
        await held;
      });
      let id = '';
      try {
        await scanned;
        const made = await s.request('POST', '/webhook-endpoints', {
          body: { url: 'https://example.test/hook', enabled_events: ['*'] },
        });
        expect(made.status, made.text).toBe(201);
        id = made.body.id;
        // Told as soon as the request's COMMIT answered, with the scan still open.
        expect(told).toEqual([id]);
        const updated = await s.request('PATCH', `/webhook-endpoints/${id}`, { body: { enabled: false } });
        expect(updated.status, updated.text).toBe(200);
        expect(told).toEqual([id, id]);
      } finally {
        release();
      }
      await scan;
      // The scan's own COMMIT changed no endpoint: nothing more.
      expect(told).toEqual([id, id]);
    },
  );
});
