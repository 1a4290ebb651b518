// Schema-driven fuzzing of every route in `allRoutes` over real HTTP. Shared by the fast suite (test/reliability/
// fuzz.test.ts) and the long one (test/soak/). Nothing here names a route: bodies, queries and params come from
// each route's own TypeBox schemas, so a route added later (billing) is fuzzed without touching this file.
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import fc, { type Arbitrary } from 'fast-check';
import { API_PREFIX } from '../../dist/lib/contract/common.js';
import type { TestServer } from '../helpers/server.js';
import { invalid, oddUnicode, valid, type Hint, type Schema } from './arbitrary.js';
import { violations } from './contract.js';
import { responseViolation } from '../helpers/responses.js';

export interface Route {
  method: string;
  url: string;
  auth: 'api_key' | 'client_secret' | 'api_key_or_client_secret' | 'none';
  body?: Schema;
  query?: Schema;
  params?: Schema;
}

export interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
}

export interface Req {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Statuses the case must get (besides the contract checks every answer gets). */
  expect?: number[];
  /** Error codes a schema-valid request must never get. */
  notCodes?: string[];
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** One HTTP request with full control over method, headers and body (GET bodies included). */
export function send(
  baseUrl: string,
  req: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<Answer> {
  const url = new URL(baseUrl);
  // node:http frames GET/DELETE bodies with neither Content-Length nor chunking unless told: say the length.
  const headers =
    req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: url.pathname + req.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const headers: Record<string, string | undefined> = {};
          for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

/** Bytes straight onto a socket (for requests node:http refuses to produce); resolves with the parsed answer. */
export function sendRaw(
  baseUrl: string,
  bytes: string | Buffer,
  opts: { endAfterMs?: number } = {},
): Promise<Answer | null> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let data = Buffer.alloc(0);
    socket.on('data', (d) => (data = Buffer.concat([data, d])));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(parseRaw(data.toString('latin1'))));
    socket.write(bytes);
    setTimeout(() => socket.end(), opts.endAfterMs ?? 300);
  });
}

function parseRaw(raw: string): Answer | null {
  const m = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(raw);
  if (!m) return null;
  const headers: Record<string, string> = {};
  for (const line of m[2]!.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = m[3]!;
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    let out = '';
    for (;;) {
      const n = /^([0-9a-fA-F]+)\r\n/.exec(body);
      if (!n) break;
      const len = parseInt(n[1]!, 16);
      if (len === 0) break;
      out += body.slice(n[0].length, n[0].length + len);
      body = body.slice(n[0].length + len + 2);
    }
    body = out;
  } else if (headers['content-length']) body = body.slice(0, Number(headers['content-length']));
  return { status: Number(m[1]), headers, text: Buffer.from(body, 'latin1').toString('utf8') };
}

/** Ids seen in successful answers, by path-param name (learned) and all together. */
export class Pools {
  readonly byParam = new Map<string, Set<string>>();
  readonly any = new Set<string>();
  readonly sessions: { id: string; client_secret: string }[] = [];

  add(param: string, id: string): void {
    if (!id) return; // an empty segment would be another route
    if (!this.byParam.has(param)) this.byParam.set(param, new Set());
    this.byParam.get(param)!.add(id);
    this.any.add(id);
  }

  /** Collects ids from a 2xx body: the object's own id, list items, and *_id fields. */
  learn(text: string): void {
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return;
    }
    const visit = (v: any, depth: number) => {
      if (!v || typeof v !== 'object' || depth > 3) return;
      if (Array.isArray(v)) return v.slice(0, 20).forEach((x) => visit(x, depth + 1));
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === 'string' && (k === 'id' || k.endsWith('_id')) && x.length > 0 && x.length < 100)
          this.any.add(x);
        else if (typeof x === 'object') visit(x, depth + 1);
      }
      if (typeof v.client_secret === 'string' && typeof v.id === 'string' && v.client_secret.startsWith('cs_')) {
        if (!this.sessions.some((s) => s.id === v.id)) this.sessions.push({ id: v.id, client_secret: v.client_secret });
      }
    };
    visit(body, 0);
  }

  pick(param: string | null): Arbitrary<string> {
    return fc.nat().map((i) => {
      // `destination_account_id` draws from the `account_id` pool, `identity_token_ids` from `token_id`, …
      const name = param?.replace(/_ids$/, '_id');
      const own = name
        ? [...this.byParam].filter(([k]) => name === k || name.endsWith(`_${k}`)).flatMap(([, v]) => [...v])
        : [];
      const list = own.length && i % 4 !== 0 ? own : [...this.any];
      return list.length ? list[i % list.length]! : 'none';
    });
  }
}

/** Property-name hints: real ids and values so that valid requests also reach the domain, not only validation. */
export function hints(pools: Pools): Hint {
  return (name, schema) => {
    if (name === 'currency') return fc.constantFrom('usd', 'USD', 'eur', 'jpy', 'gbp', 'XXX');
    if (name === 'token_id')
      return fc.oneof(
        fc.constantFrom('tok_visa', 'tok_mastercard', 'tok_chargeDeclined', 'tok_threeDSecureRequired'),
        pools.pick(null),
      );
    if (name === 'number') return fc.constantFrom('4242424242424242', '4000000000000002', '5555555555554444');
    if (name === 'account_number') return fc.constantFrom('000123456789', '000111111116');
    if (name === 'routing_number') return fc.constantFrom('110000000');
    if (name === 'amount' && schema.type === 'integer') return fc.integer({ min: 1, max: 10_000 });
    if (name === 'seconds' && schema.type === 'integer') return fc.integer({ min: 1, max: 7 * 86_400 });
    if (name === 'value' && schema.type === 'string')
      return fc.constantFrom('123456789', '912345678', '1234', 'Jane Q. Public');
    if (/_ids$/.test(name) && schema.type === 'array')
      return fc.array(pools.pick(name), { minLength: 1, maxLength: 3 });
    if (/(^|_)id$/.test(name) && schema.type === 'string') return pools.pick(name);
    return undefined;
  };
}

const CLIENT_SECRET_AUTH = new Set(['client_secret', 'api_key_or_client_secret']);

function paramNames(route: Route): string[] {
  return [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}

/** Percent-encodes a path segment; a lone surrogate (which encodeURIComponent refuses) goes as its raw WTF-8 bytes. */
function encodeSegment(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return [...v]
      .map((ch) => {
        const c = ch.charCodeAt(0);
        if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff)
          return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('');
        return encodeURIComponent(ch);
      })
      .join('');
  }
}

function fillPath(route: Route, params: Record<string, unknown>): string {
  return route.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeSegment(String(params[name] ?? 'x')));
}

function queryString(q: unknown): string {
  if (!q || typeof q !== 'object') return '';
  const usp = new URLSearchParams();
  for (const [k, v] of Object.entries(q as Record<string, unknown>)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) v.forEach((x) => usp.append(k, typeof x === 'object' ? JSON.stringify(x) : String(x)));
    else usp.append(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  }
  const s = usp.toString();
  return s ? `?${s}` : '';
}

/** Everything one route's requests can vary in, as fast-check arbitraries. */
export function routeCases(route: Route, ctx: { apiKey: string; pools: Pools }): Arbitrary<Req> {
  const { pools, apiKey } = ctx;
  const hint = hints(pools);
  const names = paramNames(route);
  const props: Record<string, Schema> = route.params?.properties ?? {};
  const paramArb: Arbitrary<Record<string, unknown>> = names.length
    ? fc.record(
        Object.fromEntries(
          names.map((n) => [
            n,
            fc.oneof(
              { weight: 3, arbitrary: pools.pick(n) },
              { weight: 1, arbitrary: valid(props[n] ?? { type: 'string', minLength: 1, maxLength: 40 }) },
            ),
          ]),
        ),
      )
    : fc.constant({});
  const badParamArb: Arbitrary<Record<string, unknown>> = names.length
    ? fc.record(
        Object.fromEntries(
          names.map((n) => {
            const s = props[n] ?? { type: 'string' };
            const bad = s.maxLength !== undefined || s.pattern || s.minLength ? invalid(s) : valid(s);
            return [
              n,
              fc.oneof(
                bad,
                oddUnicode,
                fc.constantFrom('..', '%2e%2e', ' ', 'a/b', '\u0000', 'x'.repeat(300), 'y'.repeat(3000)),
              ),
            ];
          }),
        ),
      )
    : fc.constant({});
  const queryArb = route.query ? valid(route.query, hint) : fc.constant(undefined);
  const badQueryArb = route.query
    ? fc.oneof(invalid(route.query), fc.constant({ limit: ['1', '2'] }), fc.constant({ zz_unknown: 'x' }))
    : fc.constant({ zz_unknown: 'x' });
  const bodyArb = route.body ? valid(route.body, hint) : fc.constant(undefined);
  const badBodyArb = route.body ? invalid(route.body) : fc.constant(undefined);
  // A client secret names its session: routes without a session in the path (POST /confirm-payment,
  // /get-session-config) take it as their only credential.
  const usesSecret =
    CLIENT_SECRET_AUTH.has(route.auth) && (names.includes('session_id') || route.auth === 'client_secret');
  const sessionArb = fc
    .nat()
    .map((i) =>
      pools.sessions.length ? pools.sessions[i % pools.sessions.length]! : { id: 'none', client_secret: 'cs_none' },
    );
  const withSecretArb = usesSecret
    ? route.auth === 'client_secret'
      ? fc.constant(true)
      : fc.boolean()
    : fc.constant(false);

  const base = fc.record({
    params: paramArb,
    query: queryArb,
    body: bodyArb,
    session: sessionArb,
    secret: withSecretArb,
    idem: fc.option(fc.uuid(), { nil: undefined }),
  });

  const build = (
    kind: string,
    b: {
      params: Record<string, unknown>;
      query: unknown;
      body: unknown;
      session: { id: string; client_secret: string };
      secret: boolean;
      idem?: string;
    },
  ): Req => {
    const params = { ...b.params };
    const headers: Record<string, string> = {};
    if (b.secret) {
      params.session_id = b.session.id;
      headers.authorization = `Bearer ${b.session.client_secret}`;
    } else if (route.auth !== 'none') headers.authorization = `Bearer ${apiKey}`;
    let body: string | undefined;
    if (b.body !== undefined) {
      body = JSON.stringify(b.body);
      headers['content-type'] = 'application/json';
    }
    if (b.idem && route.method !== 'GET') headers['idempotency-key'] = b.idem;
    return { kind, method: route.method, path: fillPath(route, params) + queryString(b.query), headers, body };
  };
  // A schema-valid request may fail in the domain (404, 409, 402, a domain parameter_invalid …) but never in the
  // pipeline's own syntax checks.
  const pipelineCodes = [
    'invalid_json',
    'invalid_body',
    'unsupported_media_type',
    'parameter_unknown',
    'payload_too_large',
  ];
  // Auth can fail on client-secret routes when a session expired (the clock moves under the fuzzer).
  const authFail = usesSecret ? [401] : [];

  const kinds: Arbitrary<Req>[] = [
    base.map((b) => ({ ...build('valid', b), notCodes: pipelineCodes })),
    fc
      .tuple(base, badParamArb)
      .map(([b, p]) => build('bad-param', { ...b, params: { ...b.params, ...p }, secret: false })),
    fc.tuple(base, badQueryArb).map(([b, q]) => build('bad-query', { ...b, query: q })),
    // A real key from another merchant account and odd-but-harmless headers must not change the outcome's shape.
    fc
      .tuple(
        base,
        fc.dictionary(
          fc.stringMatching(/^x-[a-z0-9-]{1,20}$/),
          fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 200 }),
          { maxKeys: 5 },
        ),
      )
      .map(([b, junk]) => {
        const r = build('junk-headers', b);
        return {
          ...r,
          headers: {
            ...junk,
            accept: 'text/html',
            'accept-encoding': 'br, gzip',
            'x-forwarded-for': '10.0.0.1, ::1',
            ...r.headers,
          },
          notCodes: pipelineCodes,
        };
      }),
  ];
  if (route.body && route.method !== 'GET') {
    kinds.push(
      fc
        .tuple(base, badBodyArb)
        .map(([b, body]) => ({ ...build('bad-body', { ...b, body }), expect: [400, ...authFail] })),
      fc
        .tuple(
          base,
          fc.constantFrom(
            '{',
            '{"a":',
            '[1,2',
            'nul',
            '{"amount": 1,}',
            "{'a':1}",
            '\u0000',
            '{"a":"\\x"}',
            '{"a":1}{"b":2}',
            '\ufeff{}',
            'NaN',
          ),
        )
        .map(([b, text]) => ({
          ...build('bad-json', b),
          body: text,
          headers: { ...build('bad-json', b).headers, 'content-type': 'application/json' },
          expect: [400, ...authFail],
        })),
      fc
        .tuple(
          base,
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/xml',
            'application/jsonx',
            'json',
            '*/*',
            'text/json',
          ),
        )
        .map(([b, ct]) => {
          const r = build('content-type', { ...b, body: b.body ?? {} });
          return { ...r, headers: { ...r.headers, 'content-type': ct }, expect: [415, ...authFail] };
        }),
      fc
        .tuple(base, fc.constantFrom('x'.repeat(256), '', ' ', 'é'.repeat(10), 'a\tb', 'k'.repeat(1000)))
        .map(([b, key]) => {
          const r = build('bad-idempotency-key', b);
          // over 255 characters, or empty: 400 wherever a key is looked at (authenticated routes)
          const refused = route.auth !== 'none' && (key.length > 255 || key === '');
          return {
            ...r,
            headers: { ...r.headers, 'idempotency-key': key },
            ...(refused ? { expect: [400, ...authFail] } : {}),
          };
        }),
    );
  }
  if (route.auth !== 'none') {
    const others = (b: { session: { id: string; client_secret: string } }) => {
      const other = pools.sessions.find((s) => s.id !== b.session.id);
      return [
        undefined,
        '',
        'Bearer',
        'Bearer ',
        `Bearer sk_test_${'0'.repeat(24)}`,
        `Bearer sk_live_${'0'.repeat(24)}`,
        'Basic dXNlcjpwYXNz',
        `Bearer ${apiKey}x`,
        `Bearer ${'k'.repeat(8000)}`,
        `Bearer cs_${'0'.repeat(48)}`,
        `Bearer ${apiKey} ${apiKey}`,
        // another session's secret is refused where the path names a session; without one, it names its own
        ...(other && names.includes('session_id') ? [`Bearer ${other.client_secret}`] : []),
        ...(route.auth === 'client_secret' ? [`Bearer ${apiKey}`] : []),
      ];
    };
    kinds.push(
      fc.tuple(base, fc.nat()).map(([b, i]) => {
        const list = others(b);
        const auth = list[i % list.length];
        const r = build('bad-auth', { ...b, secret: usesSecret });
        const headers = { ...r.headers };
        if (auth === undefined) delete headers.authorization;
        else headers.authorization = auth;
        return { ...r, headers, expect: [401] };
      }),
    );
  }
  return fc.oneof(...kinds);
}

/** Answers seen per route and case kind (`FUZZ_STATS=1` prints them): shows how deep the fuzzer reaches. */
export const stats = new Map<string, Record<string, number>>();

/** Sends one case and returns what is wrong with the answer ([] when nothing). Learns ids from successes. */
export async function runCase(
  baseUrl: string,
  req: Req,
  pools: Pools,
  names: string[],
  route: Route,
): Promise<string[]> {
  let res: Answer;
  try {
    res = await send(baseUrl, req);
  } catch (err) {
    return [`request failed: ${(err as Error).message}`];
  }
  const key = `${route.method} ${route.url}`;
  const row = stats.get(key) ?? {};
  row[`${req.kind}:${res.status}`] = (row[`${req.kind}:${res.status}`] ?? 0) + 1;
  stats.set(key, row);
  const out = violations(res);
  const schema = responseViolation(req.method, req.path, res.status, res.text);
  if (schema) out.push(schema);
  // A path that is not valid UTF-8 once decoded is refused before auth and routing (400 invalid_url).
  const badUrl =
    /%E[0-9A-F]%[AB][0-9A-F]%[89AB][0-9A-F]/i.test(req.path) && res.status === 400 && /"invalid_url"/.test(res.text);
  if (req.expect && !req.expect.includes(res.status) && !badUrl)
    out.push(`expected ${req.expect.join('|')}, got ${res.status} ${res.text.slice(0, 300)}`);
  if (req.notCodes && res.status >= 400) {
    try {
      const code = JSON.parse(res.text).error?.code;
      if (req.notCodes.includes(code))
        out.push(`schema-valid request refused by the pipeline: ${res.text.slice(0, 300)}`);
    } catch {
      /* reported by violations */
    }
  }
  if (res.status >= 200 && res.status < 300) {
    pools.learn(res.text);
    // a param value that worked belongs to that param's pool
    const path = req.path.split('?')[0]!;
    const re = new RegExp('^' + route.url.replace(/:([A-Za-z0-9_]+)/g, '([^/]+)') + '$');
    const m = re.exec(path);
    if (m) {
      names.forEach((n, i) => {
        try {
          pools.add(n, decodeURIComponent(m[i + 1]!));
        } catch {
          /* not an id worth keeping */
        }
      });
    }
  }
  return out.map((v) => `${req.kind} ${req.method} ${req.path.slice(0, 200)} → ${v}`);
}

/** Fuzzes one route with `runs` generated cases; returns the failures (with the shrunk counterexample). */
export async function fuzzRoute(
  s: TestServer,
  route: Route,
  pools: Pools,
  runs: number,
  seed?: number,
): Promise<string[]> {
  const names = paramNames(route);
  const found: string[] = [];
  const result = await fc.check(
    fc.asyncProperty(routeCases(route, { apiKey: s.apiKey, pools }), async (req) => {
      const v = await runCase(s.baseUrl, req, pools, names, route);
      if (v.length) throw new Error(v.join('\n'));
    }),
    { numRuns: runs, seed, endOnFailure: true },
  );
  if (result.failed) {
    const err = result.errorInstance as Error | undefined;
    found.push(
      `seed ${result.seed}: ${err?.message ?? String(result.errorInstance)}\ncounterexample: ${JSON.stringify(result.counterexample).slice(0, 1500)}`,
    );
  }
  return found;
}

/** Deterministic cases per route: every other method on the path → 405 with Allow; an over-limit body → 413. */
export async function fixedCases(s: TestServer, route: Route, all: Route[], pools: Pools): Promise<string[]> {
  const out: string[] = [];
  const path = fillPath(
    route,
    Object.fromEntries(paramNames(route).map((n) => [n, [...(pools.byParam.get(n) ?? ['x'])][0]])),
  );
  const declared = new Set(
    all.filter((r) => r.url === route.url || samePattern(r.url, route.url)).map((r) => r.method),
  );
  for (const method of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT']) {
    if (declared.has(method)) continue;
    const res = await send(s.baseUrl, { method, path, headers: { authorization: `Bearer ${s.apiKey}` } });
    out.push(...violations(res).map((v) => `${method} ${path} → ${v}`));
    if (res.status !== 405) out.push(`${method} ${path} → expected 405, got ${res.status}`);
  }
  if (route.method !== 'GET') {
    const big = JSON.stringify({ description: 'z'.repeat(1024 * 1024) });
    const res = await send(s.baseUrl, {
      method: route.method,
      path,
      headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' },
      body: big,
    });
    out.push(...violations(res).map((v) => `413 ${route.method} ${path} → ${v}`));
    if (res.status !== 413 && res.status !== 401)
      out.push(`${route.method} ${path} with 1 MiB body → expected 413, got ${res.status}`);
  }
  return out;
}

function samePattern(a: string, b: string): boolean {
  return a.replace(/:[A-Za-z0-9_]+/g, ':p') === b.replace(/:[A-Za-z0-9_]+/g, ':p');
}

/** Requests node:http cannot produce: broken framing, bad bytes in headers, oversized heads, odd request lines. */
export function rawCases(
  baseUrl: string,
  apiKey: string,
): { name: string; bytes: string | Buffer; endAfterMs?: number }[] {
  const url = new URL(baseUrl);
  const p = url.pathname;
  const host = `Host: ${url.host}\r\n`;
  const auth = `Authorization: Bearer ${apiKey}\r\n`;
  const body = '{"amount":100,"currency":"usd"}';
  return [
    {
      name: 'content-length larger than the body',
      bytes: `POST ${p}/create-session HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nContent-Length: 500\r\nConnection: close\r\n\r\n${body}`,
      endAfterMs: 200,
    },
    {
      name: 'content-length not a number',
      bytes: `POST ${p}/create-session HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nContent-Length: abc\r\nConnection: close\r\n\r\n${body}`,
    },
    {
      name: 'two content-lengths',
      bytes: `POST ${p}/create-session HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 31\r\nConnection: close\r\n\r\n${body}`,
    },
    {
      name: 'bad chunk',
      bytes: `POST ${p}/create-session HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    },
    {
      name: 'control byte in a header',
      bytes: `GET ${p}/sessions HTTP/1.1\r\n${host}${auth}X-Junk: a\u0001b\r\nConnection: close\r\n\r\n`,
    },
    {
      name: 'non-ASCII in Authorization',
      bytes: Buffer.from(
        `GET ${p}/sessions HTTP/1.1\r\n${host}Authorization: Bearer sk_test_\u00e9\u00e9\r\nConnection: close\r\n\r\n`,
        'latin1',
      ),
    },
    {
      name: 'UTF-8 in Idempotency-Key',
      bytes: Buffer.from(
        `POST ${p}/create-session HTTP/1.1\r\n${host}${auth}Idempotency-Key: k\u{1f4a5}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        'utf8',
      ),
    },
    {
      name: 'header section over 16 KiB',
      bytes: `GET ${p}/sessions HTTP/1.1\r\n${host}${auth}X-Big: ${'b'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
    },
    {
      name: 'URL over 16 KiB',
      bytes: `GET ${p}/sessions?external_id=${'u'.repeat(20_000)} HTTP/1.1\r\n${host}${auth}Connection: close\r\n\r\n`,
    },
    {
      name: 'invalid percent-encoding in the path',
      bytes: `GET ${p}/sessions/%zz%E0%A4%A HTTP/1.1\r\n${host}${auth}Connection: close\r\n\r\n`,
    },
    {
      name: 'NUL in the query',
      bytes: `GET ${p}/sessions?external_id=%00%ff HTTP/1.1\r\n${host}${auth}Connection: close\r\n\r\n`,
    },
    {
      name: 'dot segments',
      bytes: `GET ${p}/../functions/v1/sessions HTTP/1.1\r\n${host}${auth}Connection: close\r\n\r\n`,
    },
    { name: 'HTTP/1.0 without Host', bytes: `GET ${p}/health HTTP/1.0\r\n\r\n` },
    {
      name: 'absolute-form target',
      bytes: `GET http://${url.host}${p}/health HTTP/1.1\r\n${host}Connection: close\r\n\r\n`,
    },
    { name: 'unknown method', bytes: `BREW ${p}/sessions HTTP/1.1\r\n${host}${auth}Connection: close\r\n\r\n` },
    {
      name: 'garbage request line',
      bytes: `\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003 hello\r\n\r\n`,
    },
    {
      name: 'header without colon',
      bytes: `GET ${p}/sessions HTTP/1.1\r\n${host}${auth}NoColonHere\r\nConnection: close\r\n\r\n`,
    },
    {
      name: 'body on a GET',
      bytes: `GET ${p}/sessions HTTP/1.1\r\n${host}${auth}Content-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc`,
    },
    {
      name: 'JSON body with a charset and odd casing',
      bytes: `POST ${p}/create-session HTTP/1.1\r\n${host}${auth}Content-Type: Application/JSON; charset=UTF-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    },
  ];
}

export { API_PREFIX };
