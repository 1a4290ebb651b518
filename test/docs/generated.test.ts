// docs/api.md's route tables cannot drift from the server (issue 30: the document and /openapi.json disagreed on
// statuses, defaults and lengths). They are generated from the route declarations by scripts/api-docs.js; this test
// fails when the committed document differs from what the script writes, and checks the tables against the
// /openapi.json a real server serves.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../dist/lib/server/routes/index.js';
import { generatedSections, regenerateApiDoc } from '../../dist/lib/server/routedocs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = readFileSync(`${root}docs/api.md`, 'utf8');

let s: TestServer;
let openapi: any;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
  openapi = (await s.request('GET', '/openapi.json', { key: null })).body;
});
afterAll(() => s?.close());

/** The rows of the generated route tables: method, path, what, auth, success, errors, query. */
function routeRows(): string[][] {
  const start = docs.indexOf('<!-- generated: route-tables');
  const block = docs.slice(start, docs.indexOf('<!-- end generated: route-tables', start));
  return block
    .split('\n')
    .filter((l) => /^\| (GET|POST|PATCH|DELETE) \|/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

describe('docs/api.md generated sections', () => {
  it('are what scripts/api-docs.js writes from the route declarations (run `npm run docs` after changing a route)', () => {
    expect(generatedSections(docs).sort()).toEqual(['public-routes', 'route-tables']);
    expect(regenerateApiDoc(docs, allRoutes)).toBe(docs);
    // the script itself agrees (exit 0 with --check)
    execFileSync(process.execPath, [`${root}scripts/api-docs.js`, '--check'], { cwd: root, stdio: 'pipe' });
  });

  it('list every route once, as /openapi.json does: statuses, success, query parameters and their defaults', () => {
    const rows = routeRows();
    expect(rows).toHaveLength(allRoutes.length);
    const seen = new Set<string>();
    for (const [method, pathCell, , auth, success, errors, query] of rows) {
      const path = pathCell!.replaceAll('`', '');
      const where = `${method} ${path}`;
      expect(seen.has(where), where).toBe(false);
      seen.add(where);
      const op = openapi.paths[path]?.[method!.toLowerCase()];
      expect(op, where).toBeDefined();
      const statuses = Object.keys(op.responses).map(Number);
      expect(success!.split(' ')[0], where).toBe(String(statuses.find((x) => x < 300)));
      expect(errors!.split(', ').filter(Boolean).map(Number), where).toEqual(
        statuses.filter((x) => x >= 400 && x !== 429 && x !== 500),
      );
      expect(auth === 'none', where).toBe(op.security.length === 0);
      const params = op.parameters.filter((p: any) => p.in === 'query');
      expect(
        [...query!.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
        where,
      ).toEqual(params.map((p: any) => p.name));
      for (const p of params) {
        if (p.schema.default !== undefined)
          expect(query, `${where} ${p.name}`).toContain(`default ${Number(p.schema.default).toLocaleString('en-US')}`);
      }
    }
  });

  it('Idempotency-Key: one length in the document, /openapi.json and the server', async () => {
    const header = openapi.paths['/create-session'].post.parameters.find(
      (p: any) => p.name === 'Idempotency-Key',
    ).schema;
    const said = /`Idempotency-Key` \((\d+)–(\d+) characters/.exec(docs)!;
    expect([Number(said[1]), Number(said[2])]).toEqual([header.minLength, header.maxLength]);
    expect(docs).toContain(`\`Idempotency-Key\` of\n${header.minLength}–${header.maxLength} characters`);
    const create = (key: string) =>
      s.request('POST', '/create-session', {
        body: { amount: 100, currency: 'usd' },
        headers: { 'idempotency-key': key },
      });
    expect((await create('k'.repeat(header.maxLength))).status).toBe(201);
    expect((await create('k'.repeat(header.maxLength + 1))).status).toBe(400);
    expect((await create('')).status).toBe(400);
  });

  it('the public rate-limit bucket: every route without a credential, /test-cards and /vault/tokens included', async () => {
    const listed = [
      ...docs
        .slice(docs.indexOf('<!-- generated: public-routes'), docs.indexOf('<!-- end generated: public-routes'))
        .matchAll(/`(GET|POST) ([^`]+)`/g),
    ].map((m) => `${m[1]} ${m[2]}`);
    const open = Object.entries<any>(openapi.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops)
        .filter(([, op]) => op.security.length === 0)
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    );
    expect(listed.sort()).toEqual(open.sort());
    expect(listed).toContain('GET /test-cards');
    // They share one bucket per address: each call takes one from the same remaining count (a fresh server: no one
    // else counts here), and a keyless call to another route counts in the guest bucket instead.
    const t = await startTestServer({ memory: true });
    try {
      const remaining = async (path: string, init?: RequestInit) =>
        Number((await fetch(t.baseUrl + path, init)).headers.get('x-ratelimit-remaining'));
      const a = await remaining('/openapi.json');
      expect(await remaining('/test-cards')).toBe(a - 1);
      expect(await remaining('/sessions')).toBeGreaterThan(a - 2); // guest: a bucket of its own
      expect(await remaining('/test-cards')).toBe(a - 2);
    } finally {
      await t.close();
    }
  });
});
