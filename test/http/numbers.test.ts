// Numbers (docs/api.md "Numbers"): every integer a request carries is a safe integer within its documented
// range. What JavaScript cannot read exactly (`1e400` is Infinity, `9007199254740993` reads as …992) and what
// is out of range is a 400 `parameter_invalid` naming the field — in the body, the query string and the path —
// never a 500, a rounded value or a stored null.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { compileValidator, validationError } from '../../dist/lib/server/http/validation.js';
import { expectError } from '../helpers/util.js';

/** The number literals of the issue: not finite, beyond 2^53 (±), 2^63 − 1, and an exact 1e20. */
const EDGES = ['1e400', '-1e400', '9007199254740993', '9223372036854775807', '1e20', '-9007199254740993'];
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(async () => {
  await s?.close();
});

const post = (path: string, rawBody: string, method = 'POST') =>
  s.request(method, path, { rawBody, headers: { 'content-type': 'application/json' } });
/** The parser's own answer (not a schema's): the safe range in the message. */
const PARSER = /must be a number from -9007199254740991 to 9007199254740991/;

describe('numbers in JSON bodies', () => {
  it.each(EDGES)("%s as a coupon's max_redemptions is a 400 naming it, and no coupon is created", async (n) => {
    const before = (await s.request('GET', '/coupons')).body.total_count as number;
    const r = await post('/coupons', `{"percent_off": 10, "duration": "once", "max_redemptions": ${n}}`);
    expectError(r, 400, 'validation_error', 'parameter_invalid', 'max_redemptions');
    expect(r.body.error.message).toMatch(PARSER);
    expect((await s.request('GET', '/coupons')).body.total_count).toBe(before);
  });

  it('is read exactly up to ±(2^53 − 1): the largest safe max_redemptions is kept as sent', async () => {
    const r = await post('/coupons', `{"percent_off": 10, "duration": "once", "max_redemptions": ${MAX_SAFE}}`);
    expect(r.status, r.text).toBe(201);
    expect(r.body.max_redemptions).toBe(MAX_SAFE);
    expect((await s.request('GET', `/coupons/${r.body.id}`)).body.max_redemptions).toBe(MAX_SAFE);
    expectError(
      await post('/coupons', `{"percent_off": 10, "duration": "once", "max_redemptions": ${MAX_SAFE + 1}}`),
      400,
      'validation_error',
      'parameter_invalid',
      'max_redemptions',
    );
  });

  it.each(EDGES)(
    '%s is named by its path wherever it is: nested objects, arrays, fields of another type',
    async (n) => {
      const cases: [string, string, string, string][] = [
        ['POST', '/customers', `{"name": "a", "metadata": {"k": ${n}}}`, 'metadata.k'],
        ['POST', '/customers', `{"name": ${n}}`, 'name'],
        [
          'PATCH',
          '/subscriptions/sub_x',
          `{"items": [{"price": "p"}, {"price": "p", "quantity": ${n}}]}`,
          'items[1].quantity',
        ],
        ['POST', '/create-session', `{"amount": ${n}, "currency": "USD"}`, 'amount'],
        ['POST', '/usage-records', `{"subscription_item": "si_x", "quantity": ${n}}`, 'quantity'],
        ['POST', '/test-helpers/advance-clock', `{"to": ${n}}`, 'to'],
        [
          'POST',
          '/journal-entries',
          `{"entries": [{"account_id": "la_x", "direction": "debit", "amount": 1}, {"account_id": "la_y", "direction": "credit", "amount": ${n}}]}`,
          'entries[1].amount',
        ],
      ];
      for (const [method, path, body, param] of cases) {
        const r = await post(path, body, method);
        expectError(r, 400, 'validation_error', 'parameter_invalid', param);
        expect(r.body.error.message).toMatch(PARSER);
      }
    },
  );

  it.each(EDGES)(
    "%s in a field the route does not take is that field's 400 parameter_unknown, as any other value there",
    async (n) => {
      for (const [path, body, field] of [
        ['/coupons', `{"percent_off": 10, "duration": "once", "max_redemptionz": ${n}}`, 'max_redemptionz'],
        ['/customers', `{"name": "a", "extra": {"k": [${n}]}}`, 'extra'],
        // nested: the first field on the way to the number that its object does not take
        [
          '/create-session',
          `{"amount": 100, "currency": "usd", "customer": {"email": "a@example.com", "fax": ${n}}}`,
          'customer.fax',
        ],
        [
          '/create-session',
          `{"amount": 100, "currency": "usd", "browser": {"screen": {"width": ${n}}}}`,
          'browser.screen',
        ],
        [
          '/journal-entries',
          `{"entries": [{"account_id": "la_x", "direction": "debit", "amount": 1}, {"account_id": "la_y", "direction": "credit", "amount": 1, "weight": ${n}}]}`,
          'entries[1].weight',
        ],
      ]) {
        const r = await post(path!, body!);
        expectError(r, 400, 'validation_error', 'parameter_unknown', field);
        expect(r.body.error.message).toBe(`Received unknown parameter: ${field}.`);
      }
      // a field the route takes keeps the parser's answer (above); one under metadata (any key) too
      expectError(
        await post('/customers', `{"name": "a", "metadata": {"any": ${n}}}`),
        400,
        'validation_error',
        'parameter_invalid',
        'metadata.any',
      );
    },
  );

  it("an attacker's nesting does not turn it into a 500: 200,000 arrays deep, the path named is cut at 255 characters", async () => {
    const deep = (n: string) => `{"name": "a", "metadata": ${'['.repeat(200_000)}${n}${']'.repeat(200_000)}}`;
    const r = await post('/customers', deep('1e400'));
    expectError(r, 400, 'validation_error', 'parameter_invalid');
    expect(r.body.error.param).toMatch(/^metadata(\[0\])+…$/);
    expect(r.body.error.param.length).toBe(255);
    expectError(await post('/customers', deep('1e5')), 400, 'validation_error', 'parameter_invalid', 'metadata'); // exact: the schema's turn
  });

  it('a timestamp a request sets stops at the end of year 9999', async () => {
    const r = await post('/coupons', '{"percent_off": 10, "duration": "once", "redeem_by": 253402300800}');
    expectError(r, 400, 'validation_error', 'parameter_invalid', 'redeem_by');
    expect(r.body.error.message).toMatch(/253402300799/);
  });

  it('numbers JavaScript reads exactly still pass the parser: decimals, exponents, 16 digits within range', async () => {
    // Each fails on its own field's schema, not on the parser: the parser let it through.
    expectError(
      await post('/customers', '{"name": "a", "metadata": {"k": 1.5e3}}'),
      400,
      'validation_error',
      'parameter_invalid',
      'metadata.k',
    );
    const r = await post('/coupons', '{"percent_off": 1e1, "duration": "once", "max_redemptions": 1000000000000000}');
    expect(r.status, r.text).toBe(201);
    expect([r.body.percent_off, r.body.max_redemptions]).toEqual([10, 1e15]);
  });
});

describe('numbers in query strings', () => {
  it.each(EDGES)('offset=%s on /list-identity-tokens is a 400 naming it (was a 500 datatype mismatch)', async (n) => {
    expectError(
      await s.request('GET', `/list-identity-tokens?offset=${encodeURIComponent(n)}`),
      400,
      'validation_error',
      'parameter_invalid',
      'offset',
    );
  });

  it('offset has a documented range: 1000000000 is taken, one more is not', async () => {
    const r = await s.request('GET', '/list-identity-tokens?offset=1000000000');
    expect(r.status, r.text).toBe(200);
    expectError(
      await s.request('GET', '/list-identity-tokens?offset=1000000001'),
      400,
      'validation_error',
      'parameter_invalid',
      'offset',
    );
  });

  it.each(EDGES)('limit=%s on other lists is a 400 naming it', async (n) => {
    for (const path of ['/sessions', '/customers', '/ledger-accounts']) {
      expectError(
        await s.request('GET', `${path}?limit=${encodeURIComponent(n)}`),
        400,
        'validation_error',
        'parameter_invalid',
        'limit',
      );
    }
  });
});

describe('numbers in path parameters', () => {
  // No route takes an integer in its path today; path parameters go through the same compiled validators as
  // query strings (with string coercion), so a future one gets the same range.
  it.each(EDGES)('%s in an integer path parameter fails validation naming it', (n) => {
    const validate = compileValidator(
      { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
      'params',
    );
    expect(validate({ n })).toBe(false);
    const err = validationError(validate.errors!, 'params');
    expect([err.status, err.code, err.param]).toEqual([400, 'parameter_invalid', 'n']);
    expect(validate({ n: String(MAX_SAFE) })).toBe(true);
  });
});

describe('/openapi.json', () => {
  it('states the range of every integer and number, the safe range where the schema sets none', async () => {
    const doc = (await s.request('GET', '/openapi.json', { key: null })).body;
    const unbounded: string[] = [];
    let numbers = 0;
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (n.type === 'integer' || n.type === 'number') {
        numbers++;
        const low = (n.minimum ?? n.exclusiveMinimum) as number | undefined;
        const high = (n.maximum ?? n.exclusiveMaximum) as number | undefined;
        if (low === undefined || high === undefined || low < -MAX_SAFE || high > MAX_SAFE) unbounded.push(path);
      }
      for (const [k, v] of Object.entries(n)) walk(v, `${path}/${k}`);
    };
    walk(doc.paths, '');
    expect(numbers).toBeGreaterThan(100);
    expect(unbounded).toEqual([]);
    const params = doc.paths['/list-identity-tokens'].get.parameters as { name: string; schema: { maximum: number } }[];
    expect(params.find((p) => p.name === 'offset')!.schema.maximum).toBe(1_000_000_000);
    const coupon = doc.paths['/coupons'].post.requestBody.content['application/json'].schema.properties;
    expect([coupon.max_redemptions.minimum, coupon.max_redemptions.maximum]).toEqual([1, MAX_SAFE]);
    expect(coupon.redeem_by.maximum).toBe(253402300799);
  });
});
