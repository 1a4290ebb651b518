// The long fuzz (npm run test:soak): the same driver as test/reliability/fuzz.test.ts, many more cases per route and
// several fresh servers with different seeds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../../dist/lib/server/routes/index.js';
import { startTestServer } from '../helpers/server.js';
import { fixedCases, fuzzRoute, rawCases, sendRaw, type Route } from '../reliability/fuzz-driver.js';
import { seed } from '../reliability/fixtures.js';
import { violations } from '../reliability/contract.js';
import { healthy } from '../reliability/health.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 3);
const routes = allRoutes as unknown as Route[];

describe('soak: fuzz every route', () => {
  for (let round = 0; round < ROUNDS; round++) {
    it(
      `round ${round + 1}: ${RUNS} cases per route, zero 5xx, contract bodies, healthy afterwards`,
      { timeout: 30 * 60_000 },
      async () => {
        const s = await startTestServer({ rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 } });
        try {
          const pools = await seed(s);
          const failures: string[] = [];
          for (const route of routes)
            failures.push(...(await fuzzRoute(s, route, pools, RUNS)), ...(await fixedCases(s, route, routes, pools)));
          for (const c of rawCases(s.baseUrl, s.apiKey)) {
            const res = await sendRaw(s.baseUrl, c.bytes, { endAfterMs: c.endAfterMs });
            if (res) failures.push(...violations(res).map((v) => `${c.name}: ${v}`));
          }
          expect(failures).toEqual([]);
          await healthy(s);
        } finally {
          await s.close();
        }
        const log = readFileSync(join(s.dataDir!, 'server.log'), 'utf8');
        expect(log.split('\n').filter((l) => l.includes('"level":50'))).toEqual([]);
      },
    );
  }

  it(
    `all routes at once: ${Math.ceil(RUNS / 4)} cases per route, every route's fuzzer running concurrently (group commit under mixed failures)`,
    { timeout: 30 * 60_000 },
    async () => {
      const s = await startTestServer({ rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 } });
      try {
        const pools = await seed(s);
        const failures = (
          await Promise.all(routes.map((route) => fuzzRoute(s, route, pools, Math.ceil(RUNS / 4))))
        ).flat();
        expect(failures).toEqual([]);
        await healthy(s);
      } finally {
        await s.close();
      }
      const log = readFileSync(join(s.dataDir!, 'server.log'), 'utf8');
      expect(log.split('\n').filter((l) => l.includes('"level":50'))).toEqual([]);
    },
  );
});
