// The identity vault over HTTP: validation per type, masking, offset pagination, delete, and ciphertext-only
// storage (the database files are read byte by byte and searched for the plaintext).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { expectError, ISO_MS } from '../helpers/util.js';
import { statementsRun } from '../helpers/statements.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const create = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  s.request('POST', '/identity-tokens', { body, headers });

describe('identity tokens', () => {
  it('vaults a value and returns only a masked value with at most the last 4', async () => {
    const r = await create({ type: 'ssn', value: '123-45-6789', field_name: 'applicant_ssn' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      token_id: expect.stringMatching(/^idt_[0-9A-Za-z]{20,}$/),
      object: 'identity_token',
      type: 'ssn',
      masked_value: '***-**-6789',
      field_name: 'applicant_ssn',
      environment: 'test',
      created_at: expect.stringMatching(ISO_MS),
    });
    expect(r.text).not.toContain('12345');
    expect(r.text).not.toContain('123-45');
    const got = await s.request('GET', `/identity-tokens/${r.body.token_id}`);
    expect(got.body).toEqual(r.body);
  });

  it('masks every type without revealing more than the last 4 (and at most half of a short value)', async () => {
    const cases: [string, string, string][] = [
      ['ein', '12-3456789', '**-***6789'],
      ['itin', '912345678', '***-**-5678'],
      ['ssn_last4', '6789', '****89'],
      ['passport', 'X1234567Z', '****567Z'],
      ['custom', 'abc', '****c'],
      ['custom', 'a', '****'],
    ];
    for (const [type, value, masked] of cases) {
      const r = await create({ type, value });
      expect(r.status, `${type} ${JSON.stringify(r.body)}`).toBe(201);
      expect(r.body.masked_value).toBe(masked);
    }
  });

  it('validates values per type without ever echoing them', async () => {
    const bad: [string, string][] = [
      ['ssn', '12345678'],
      ['ssn', '1234567890'],
      ['ssn', '12345678a'],
      ['ein', '12-34567'],
      ['itin', '812345678'],
      ['ssn_last4', '123'],
      ['ssn_last4', '12345'],
      ['passport', ''],
      ['custom', 'x'.repeat(101)],
      ['drivers_license', '   '],
    ];
    for (const [type, value] of bad) {
      const r = await create({ type, value });
      expectError(r, 400, 'validation_error', 'parameter_invalid', 'value');
      if (value.trim().length >= 3) expect(r.text).not.toContain(value.trim());
    }
    expectError(await create({ type: 'ssn' }), 400, 'validation_error', 'parameter_missing', 'value');
    expectError(await create({ type: 'dna', value: '1' }), 400, 'validation_error', 'parameter_invalid', 'type');
    expectError(await create({ type: 'ssn', value: 123456789 }), 400, 'validation_error', 'parameter_invalid', 'value');
    expectError(
      await create({ type: 'ssn', value: '123456789', extra: 1 }),
      400,
      'validation_error',
      'parameter_unknown',
      'extra',
    );
  });

  it('lists with limit/offset/type and the pagination object', async () => {
    const t = await startTestServer({ memory: true });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push(
          (await t.request('POST', '/identity-tokens', { body: { type: 'ssn', value: `12345678${i}` } })).body.token_id,
        );
      const ein = (await t.request('POST', '/identity-tokens', { body: { type: 'ein', value: '123456789' } })).body
        .token_id;
      const first = await t.request('GET', '/list-identity-tokens?limit=2');
      expect(first.status).toBe(200);
      expect(first.body.pagination).toEqual({ total: 6, limit: 2, offset: 0, has_more: true });
      expect(first.body.data.map((x: any) => x.token_id)).toEqual([ein, ids[4]]);
      const last = await t.request('GET', '/list-identity-tokens?limit=2&offset=4');
      expect(last.body.pagination).toEqual({ total: 6, limit: 2, offset: 4, has_more: false });
      expect(last.body.data.map((x: any) => x.token_id)).toEqual([ids[1], ids[0]]);
      const ssn = await t.request('GET', '/list-identity-tokens?type=ssn&offset=3');
      expect(ssn.body.pagination).toEqual({ total: 5, limit: 10, offset: 3, has_more: false });
      expect(ssn.body.data).toHaveLength(2);
      // the totals come from the kept counts, not a COUNT over the account's tokens
      const counted = await statementsRun(() => t.request('GET', '/list-identity-tokens?type=ein'));
      expect(counted.result.body.pagination.total).toBe(1);
      expect(counted.ran.filter((q) => /COUNT\(\*\)/.test(q))).toEqual([]);
      const beyond = await t.request('GET', '/list-identity-tokens?offset=50');
      expect(beyond.body).toMatchObject({ data: [], pagination: { total: 6, offset: 50, has_more: false } });
      for (const item of first.body.data) expect(Object.keys(item)).not.toContain('value');
      expectError(
        await t.request('GET', '/list-identity-tokens?limit=101'),
        400,
        'validation_error',
        'parameter_invalid',
        'limit',
      );
      expectError(
        await t.request('GET', '/list-identity-tokens?offset=-1'),
        400,
        'validation_error',
        'parameter_invalid',
        'offset',
      );
      expectError(
        await t.request('GET', '/list-identity-tokens?type=dna'),
        400,
        'validation_error',
        'parameter_invalid',
        'type',
      );
    } finally {
      await t.close();
    }
  });

  it('deletes a token (then 404)', async () => {
    const r = await create({ type: 'tax_id', value: 'DE123456789' });
    const del = await s.request('DELETE', `/identity-tokens/${r.body.token_id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ token_id: r.body.token_id, object: 'identity_token', deleted: true });
    expectError(
      await s.request('GET', `/identity-tokens/${r.body.token_id}`),
      404,
      'invalid_request_error',
      'resource_missing',
      'token_id',
    );
    expectError(
      await s.request('DELETE', `/identity-tokens/${r.body.token_id}`),
      404,
      'invalid_request_error',
      'resource_missing',
    );
  });

  it.runIf(onSqlite)(
    'stores only ciphertext: the plaintext is in no file of the data directory (database, WAL, log, after close)',
    async () => {
      const t = await startTestServer();
      const secrets = ['987654321', '912345670', 'PASSPORT-SECRET-X9Q'];
      const add = (body: Record<string, unknown>, headers?: Record<string, string>) =>
        t.request('POST', '/identity-tokens', { body, headers });
      expect((await add({ type: 'ssn', value: secrets[0] }, { 'idempotency-key': 'vault-1' })).status).toBe(201);
      expect((await add({ type: 'itin', value: secrets[1] })).status).toBe(201);
      expect((await add({ type: 'passport', value: secrets[2], field_name: 'passport' })).status).toBe(201);
      // A rejected value is not stored or logged either.
      expect((await add({ type: 'ssn', value: '55555555x' })).status).toBe(400);
      const sealed = sqliteOf(t).db.prepare('SELECT data FROM identity_tokens').all() as { data: string }[];
      expect(sealed).toHaveLength(3);
      for (const r of sealed) expect(JSON.parse(r.data).value_sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
      // The sealed values open to the originals (so the test would notice if nothing were stored at all).
      const opened = sealed.map((r) => t.server.services.sealer.open(JSON.parse(r.data).value_sealed)).sort();
      expect(opened).toEqual([...secrets].sort());

      // Scan while running (WAL not yet checkpointed) and again after close (log flushed, WAL folded in).
      const scan = () => {
        const files = readdirSync(t.dataDir!, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
        let bytesChecked = 0;
        for (const f of files) {
          const bytes = readFileSync(join(f.parentPath ?? (f as any).path, f.name));
          for (const secret of [...secrets, '55555555x']) {
            expect(bytes.includes(Buffer.from(secret, 'utf8')), `${secret} in ${f.name}`).toBe(false);
            expect(bytes.includes(Buffer.from(secret, 'utf16le')), `${secret} (utf16) in ${f.name}`).toBe(false);
          }
          bytesChecked += bytes.length;
        }
        return { names: files.map((f) => f.name), bytesChecked };
      };
      const running = scan();
      expect(running.names).toContain('payorch.db');
      await t.close();
      const closed = scan();
      expect(closed.names).toEqual(expect.arrayContaining(['payorch.db', 'server.log']));
      expect(readFileSync(join(t.dataDir!, 'server.log'), 'utf8')).toContain('/identity-tokens');
      expect(closed.bytesChecked).toBeGreaterThan(10_000);
    },
  );
});
