// Schema-driven fuzzing of EVERY route in allRoutes over real HTTP (issue 6): generated valid and invalid bodies,
// queries and params, wrong content types, bad JSON, junk headers, bad Authorization and Idempotency-Key values,
// other methods, oversized bodies and broken HTTP framing. Zero 5xx; every failure in the contract's error body
// (request_id = Request-Id, a type/code from docs/api.md "Errors"); the server healthy afterwards. Routes come from
// `allRoutes`, so an area added later is fuzzed without editing this file. The long variant: test/soak/fuzz.soak.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../dist/lib/server/routes/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixedCases, fuzzRoute, rawCases, sendRaw, stats, type Pools, type Route } from './fuzz-driver.js';
import { seed } from './fixtures.js';
import { violations } from './contract.js';
import { healthy } from './health.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const routes = allRoutes as unknown as Route[];
/**
 * The route-by-route pass generates the same cases on every run (a seed per route from FUZZ_SEED, default fixed):
 * its verdicts, and the coverage figure below, do not change from one CI run to the next. FUZZ_SEED=random, the
 * concurrent pass below and the soak variant explore new cases. A failure names its seed.
 */
const BASE_SEED = process.env.FUZZ_SEED === 'random' ? undefined : Number(process.env.FUZZ_SEED ?? 20261125);
// A mistyped seed would otherwise run as 0, a fixed seed the caller did not ask for.
if (BASE_SEED !== undefined && !Number.isSafeInteger(BASE_SEED))
  throw new Error(`FUZZ_SEED must be an integer or "random", not ${process.env.FUZZ_SEED}`);
const seedOf = (route: Route): number | undefined => {
  if (BASE_SEED === undefined) return undefined;
  let h = BASE_SEED | 0;
  for (const c of `${route.method} ${route.url}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return h;
};

let s: TestServer;
let pools: Pools;
beforeAll(async () => {
  // Limits out of the way: the fuzzer sends thousands of requests (limits have their own test).
  s = await startTestServer({ rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 } });
  pools = await seed(s);
});
afterAll(() => s?.close());

describe('fuzz: every route', () => {
  it('covers every route of allRoutes (a new area is picked up automatically)', () => {
    expect(routes.length).toBeGreaterThan(50);
  });

  it.each(routes.map((r) => [`${r.method} ${r.url}`, r] as const))('%s', async (_name, route) => {
    const failures = [
      ...(await fuzzRoute(s, route, pools, RUNS, seedOf(route))),
      ...(await fixedCases(s, route, routes, pools)),
    ];
    expect(failures).toEqual([]);
  });

  it('reaches the domain: schema-valid requests succeed on most routes', () => {
    // Counted on the route-by-route pass (fixed seeds), before the concurrent pass adds cases whose outcome
    // depends on how the routes interleave. With random seeds and both passes counted, it measured 51 to 61 of
    // 130 routes in four runs, two of them at or under the bound; with the fixed seeds, 60 in every run (also
    // pinned to one core beside a CPU hog).
    const ok = [...stats].filter(([, row]) => Object.entries(row).some(([k, n]) => /^valid:2\d\d$/.test(k) && n > 0));
    if (process.env.FUZZ_STATS) {
      for (const [route, row] of stats)
        console.log(
          route,
          Object.entries(row)
            .filter(([k]) => k.startsWith('valid:'))
            .map(([k, n]) => `${k.slice(6)}×${n}`)
            .join(' '),
        );
      console.log(`routes reached: ${ok.length} of ${routes.length}`);
    }
    // Not every route can succeed with random input (e.g. confirm on an already-paid session), but many do.
    expect(ok.length).toBeGreaterThan(routes.length * 0.4);
  });

  it('broken HTTP framing and odd request lines get the contract error body (or a closed connection), never a 5xx', async () => {
    const failures: string[] = [];
    for (const c of rawCases(s.baseUrl, s.apiKey)) {
      const res = await sendRaw(s.baseUrl, c.bytes, { endAfterMs: c.endAfterMs });
      if (res === null) continue; // the server hung up without answering: acceptable for unparseable bytes
      failures.push(...violations(res).map((v) => `${c.name}: ${v}`));
    }
    expect(failures).toEqual([]);
  });

  it('every route fuzzed at once (writes share group commits with failing neighbours): same guarantees', async () => {
    const failures = (await Promise.all(routes.map((route) => fuzzRoute(s, route, pools, Math.ceil(RUNS / 3))))).flat();
    expect(failures).toEqual([]);
  });

  it('the server is healthy afterwards: health, a write, ledger invariants, no unhandled error in the log', async () => {
    await healthy(s);
    await s.close();
    const log = readFileSync(join(s.dataDir!, 'server.log'), 'utf8');
    expect(log.split('\n').filter((l) => l.includes('"level":50') || /unhandled error/.test(l))).toEqual([]);
  });
});
