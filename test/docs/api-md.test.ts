// docs/api.md says what the server does (issue 30, "the docs drift"): each claim below is read from the document and
// checked against a real server over HTTP.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { advance } from '../payments/util.js';

const docs = readFileSync(fileURLToPath(new URL('../../docs/api.md', import.meta.url)), 'utf8');

/** The text of a `## `/`### ` section, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = docs.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const level = heading.indexOf(' ');
  const rest = docs.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  return end < 0 ? rest : rest.slice(0, end);
}

/** A markdown table's rows as cells (`\|` inside a cell kept). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());

describe('"Live-service parity"', () => {
  it('every row on browsers from other origins (CORS) says what the server does: 204 preflights, any origin', async () => {
    const preflight = await fetch(`${s.baseUrl}/confirm-payment`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const rows = tableRows(section('## Live-service parity')).filter((r) => /CORS|another origin/i.test(r[0]!));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row[2], row[0]).not.toMatch(/not answered|not allowed/i);
      expect(row[2], row[0]).toContain('Access-Control-Allow-Origin: *');
      expect(row[2], row[0]).toContain('204');
    }
  });
});

describe('"Errors"', () => {
  /** Requests and the `parameter_invalid` message the server answers each with. */
  const examples: Array<{ path: string; body: unknown; message: string }> = [
    {
      path: '/create-session',
      body: { amount: 100, currency: 'usd', success_url: 'not-a-url' },
      message: 'Invalid success_url: must be an absolute http or https URL (https://…).',
    },
    {
      path: '/create-session',
      body: { amount: 100, currency: 'usd1' },
      message: 'Invalid currency: must be a three-letter ISO 4217 currency code.',
    },
    {
      path: '/create-session',
      body: { amount: 100, currency: 'us' },
      message: 'Invalid currency: must be a three-letter ISO 4217 currency code.',
    },
    {
      path: '/create-session',
      body: { amount: 100, currency: 'u$d' },
      message: 'Invalid currency: must be a three-letter ISO 4217 currency code.',
    },
    {
      path: '/create-session',
      body: { amount: 100, currency: 'XYZ' },
      message: 'Invalid currency: "XYZ" is not an ISO 4217 currency code.',
    },
    {
      path: '/create-session',
      body: { amount: 100, currency: 'usd', metadata: { ['k'.repeat(41)]: 'v' } },
      message: `Invalid metadata: key "${'k'.repeat(41)}" is too long: keys must be at most 40 characters.`,
    },
  ];

  it('the parameter_invalid messages it quotes are the ones the server sends', async () => {
    for (const e of examples) {
      const res = await s.request('POST', e.path, { body: e.body });
      expect(
        { status: res.status, code: res.body.error?.code, message: res.body.error?.message },
        JSON.stringify(e.body),
      ).toEqual({ status: 400, code: 'parameter_invalid', message: e.message });
    }
    const paragraph = section('## Errors').slice(section('## Errors').indexOf('`parameter_invalid` messages'));
    const quoted = [
      ...paragraph
        .slice(0, paragraph.indexOf('\n\n'))
        .replaceAll('\n', ' ')
        .matchAll(/`(Invalid [^`]+)`/g),
    ].map((m) => m[1]!);
    expect(quoted.length).toBeGreaterThan(2);
    for (const q of quoted) {
      // "…" in a quote stands for the value
      const re = new RegExp(
        `^${q
          .split('…')
          .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.+')}$`,
      );
      expect(
        examples.some((e) => re.test(e.message) || e.message === q),
        q,
      ).toBe(true);
    }
  });

  it('one type for each code: both list cursors at once are a validation_error, as its table row says', async () => {
    const res = await s.request('GET', '/sessions?starting_after=a&ending_before=b');
    const row = tableRows(section('## Errors')).find((r) => r[2] === 'parameter_invalid')!;
    expect(row[1]).toBe('validation_error');
    expect(res.body.error).toMatchObject({ type: row[1], code: 'parameter_invalid', param: 'ending_before' });
  });
});

describe('"Idempotency"', () => {
  it('names the clock the 24 h lifetime runs on — real time — and the test clock does not expire a key', async () => {
    const text = section('## Idempotency');
    expect(text).toMatch(/Lifetime: 24 h from first use, in real time[^.]*not the account's test clock/);
    const t = await startTestServer({ memory: true }); // its own: the test clock moves
    try {
      const create = () =>
        t.request('POST', '/create-session', {
          body: { amount: 100, currency: 'usd' },
          headers: { 'idempotency-key': 'clock-test' },
        });
      const first = await create();
      await advance(t, 2 * 86_400);
      const again = await create();
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(first.body.id);
    } finally {
      await t.close();
    }
  });
});

describe('"Conventions": timestamps', () => {
  const bullet = () =>
    section('## Conventions')
      .split('\n- ')
      .find((b) => b.startsWith('Timestamps:'))!
      .replace(/\s+/g, ' ');

  /** Every property of the response schemas in /openapi.json, with its name and schema. */
  function responseProperties(doc: any): Array<{ name: string; schema: any; where: string }> {
    const out: Array<{ name: string; schema: any; where: string }> = [];
    const walk = (schema: any, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      for (const [name, p] of Object.entries<any>(schema.properties ?? {})) {
        out.push({ name, schema: p, where });
        walk(p, `${where}.${name}`);
      }
      for (const key of ['items', 'anyOf', 'additionalProperties']) {
        const v = schema[key];
        if (Array.isArray(v)) v.forEach((b) => walk(b, where));
        else walk(v, where);
      }
    };
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const [status, r] of Object.entries<any>(op.responses))
          if (status < '400') walk(r.content['application/json'].schema, `${method} ${path}`);
      }
    }
    return out;
  }

  it('one rule — the type says the form — and the fields in milliseconds are the ones it names', async () => {
    const text = bullet();
    expect(text).toMatch(/an integer is Unix seconds/);
    expect(text).toMatch(/a string is ISO 8601/);
    const exception = /Unix milliseconds[^.]*?:([^.]*)\./.exec(text)?.[1] ?? '';
    const named = new Set([...exception.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
    const doc = (await s.request('GET', '/openapi.json', { key: null })).body;
    const props = responseProperties(doc);
    const inMs = new Set(
      props
        .filter((p) => p.schema.type === 'integer' && /Unix milliseconds/.test(p.schema.description ?? ''))
        .map((p) => p.name),
    );
    expect(inMs).toEqual(named);
    // No timestamp is a float or a date without a form: an integer (seconds, or the milliseconds named) or a string.
    for (const p of props.filter((x) => /(^created$|_at$|At$|timestamp)/.test(x.name))) {
      const types = (p.schema.anyOf ?? [p.schema]).map((b: any) => b.type).filter((t: string) => t !== 'null');
      expect(
        types.length === 1 && ['integer', 'string'].includes(types[0]),
        `${p.where}.${p.name}: ${JSON.stringify(p.schema)}`,
      ).toBe(true);
    }
  });

  it("the server answers so: seconds, milliseconds where named, and a bank account's two forms of one instant", async () => {
    const now = Date.now();
    const sess = (
      await s.request('POST', '/create-session', {
        body: { amount: 100, currency: 'usd', payment_method_types: ['walletone_pay'] },
      })
    ).body;
    const wallet = (
      await s.request('POST', '/walletone-pay-validate-merchant', {
        body: { session_id: sess.id, validation_url: 'https://wallet.example/start', domain: 'shop.example.com' },
      })
    ).body;
    for (const f of ['epoch_timestamp', 'expires_at']) expect(Math.abs(wallet[f] - now), f).toBeLessThan(3_600_000);
    const canceled = (await s.request('POST', `/sessions/${sess.id}/cancel`, { body: {} })).body;
    expect(Math.abs(canceled.canceled_at - now / 1000)).toBeLessThan(3600);
    const ba = (
      await s.request('POST', '/bank-accounts', {
        body: { account_number: '000123456789', routing_number: '110000000', holder_name: 'Jenny Rosen' },
      })
    ).body;
    expect(Math.floor(Date.parse(ba.created_at) / 1000)).toBe(ba.created);
    expect(bullet()).toContain('`created_at`');
  });
});
