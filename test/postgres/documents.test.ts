// PostgreSQL's documents answer as SQLite's: the same operations — inserts across two accounts, updates that move a
// document's filter values, deletes, reads, lists with every cursor, filter and limit (errors included) and totals,
// some several to a transaction — run through SQLite's Collection and through pgDocuments on real tables of both
// engines' migrated schemas, and every answer (documents, pages, totals, error bodies) is the same.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../dist/lib/server/adapters/sqlite/db.js';
import { asyncDocuments, Collection } from '../../dist/lib/server/adapters/sqlite/collection.js';
import { tables, type TableDef } from '../../dist/lib/server/store/tables.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../dist/lib/server/adapters/postgres/db.js';
import { pgDocuments } from '../../dist/lib/server/adapters/postgres/documents.js';
import type { Documents, ListOptions } from '../../dist/lib/server/store/seam.js';
import { postgresServer } from '../helpers/postgres.js';

const pg = postgresServer();

type Value = string | number | null;
type Doc = { id: string } & Record<string, unknown>;

/** A table under test: a document of variant `v` (its filter values depend on v), and the values its filters try. */
interface Spec {
  def: TableDef<Doc>;
  make(id: string, v: number): Doc;
  filters: Record<string, Value[]>;
}

const spec = (def: unknown, make: Spec['make'], filters: Spec['filters']): Spec => ({
  def: def as TableDef<Doc>,
  make,
  filters,
});

const STATUSES = ['requires_payment_method', 'succeeded', 'expired'];
const specs: Spec[] = [
  spec(
    tables.payment_sessions,
    (id, v) => ({
      id,
      object: 'payment_session',
      amount: 100 * v,
      status: STATUSES[v % 3]!,
      external_id: v % 4 === 0 ? null : `ext_${v % 3}`,
      expires_ms: 1_700_000_000_000 + v,
      client_secret_hash: `h${v}`,
      metadata: { v: String(v) },
    }),
    { status: [...STATUSES, 'canceled', null], external_id: [null, 'ext_0', 'ext_1', 'ext_2'] },
  ),
  spec(
    tables.customers,
    (id, v) => ({ id, object: 'customer', email: v % 3 === 0 ? null : `c${v % 2}@example.com`, name: `n${v}` }),
    { email: [null, 'c0@example.com', 'c1@example.com', 'c9@example.com'] },
  ),
  spec(
    tables.ledger_entries,
    (id, v) => ({
      id,
      object: 'ledger_entry',
      ledger_account_id: `la_${v % 3}`,
      journal_entry_id: `je_${v}`,
      entry_type: v % 2 ? 'debit' : 'credit',
      amount: 1 + v,
      delta: v % 2 ? 1 + v : -1 - v,
      currency: 'usd',
    }),
    { ledger_account_id: ['la_0', 'la_1', 'la_2', 'la_3'] },
  ),
  // An INTEGER filter column (a boolean stored as 0/1).
  spec(tables.products, (id, v) => ({ id, object: 'product', active: v % 2 === 0, name: `p${v}` }), {
    active: [0, 1],
  }),
];

type Op =
  | { kind: 'insert'; account: number; v: number }
  | { kind: 'update'; account: number; ref: number; v: number }
  | { kind: 'delete' | 'get' | 'require'; account: number; ref: number }
  | {
      kind: 'list';
      account: number;
      cursor: 'none' | 'after' | 'before' | 'both';
      ref: number;
      ref2: number;
      limit?: number;
      where: ListOptions['where'];
    }
  | { kind: 'total'; account: number; where: ListOptions['where'] };

function opArb(s: Spec): fc.Arbitrary<Op> {
  const account = fc.integer({ min: 0, max: 1 });
  const ref = fc.nat();
  const v = fc.nat({ max: 40 });
  const cols = Object.entries(s.filters);
  const where = fc
    .tuple(
      ...cols.map(([, values]) => fc.option(fc.constantFrom(...values), { nil: undefined, freq: 2 })),
      fc.option(fc.constant('x'), { nil: undefined, freq: 20 }),
    )
    .map((vals) => {
      const w: Record<string, Value | undefined> = {};
      cols.forEach(([name], i) => (w[name] = vals[i] as Value | undefined));
      // Now and then a filter on a column the table does not declare: an error on both.
      if (vals[cols.length] !== undefined) w.undeclared = vals[cols.length] as string;
      return w;
    });
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('insert' as const), account, v }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), account, ref, v }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constantFrom('delete' as const, 'get' as const, 'require' as const),
        account,
        ref,
      }),
    },
    {
      weight: 5,
      arbitrary: fc.record(
        {
          kind: fc.constant('list' as const),
          account,
          cursor: fc.constantFrom('none' as const, 'after' as const, 'before' as const, 'both' as const),
          ref,
          ref2: ref,
          limit: fc.integer({ min: 0, max: 4 }),
          where,
        },
        { requiredKeys: ['kind', 'account', 'cursor', 'ref', 'ref2', 'where'] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('total' as const), account, where }) },
  );
}

/** An answer or the error thrown, as plain JSON (an error by its contract fields and message). */
async function outcome(f: () => Promise<unknown>): Promise<unknown> {
  try {
    return JSON.parse(JSON.stringify({ ok: (await f()) ?? null }));
  } catch (e) {
    const err = e as { name?: string; message?: string; status?: number; code?: string; type?: string; param?: string };
    return JSON.parse(
      JSON.stringify({
        error: { message: err.message, status: err.status, code: err.code, type: err.type, param: err.param },
      }),
    );
  }
}

/**
 * Runs `batches` (each one write transaction) on one engine's documents: every answer, then each account's whole
 * list. `run` names the run's accounts and ids, the same on both engines.
 */
async function play(
  grouped: <R>(fn: () => Promise<R>) => Promise<R>,
  docs: Documents<Doc>,
  s: Spec,
  run: string,
  batches: Op[][],
): Promise<unknown[]> {
  const ids: string[] = [];
  const idOf = (ref: number) =>
    ref % (ids.length + 1) === ids.length ? `missing_${run}` : ids[ref % (ids.length + 1)]!;
  const acct = (n: number) => `acct_${run}_${n}`;
  const out: unknown[] = [];
  const apply = (op: Op): Promise<unknown> => {
    const a = acct(op.account);
    switch (op.kind) {
      case 'insert': {
        const id = `${s.def.name}_${run}_${ids.length}`;
        ids.push(id);
        return docs.insert(a, s.make(id, op.v));
      }
      case 'update':
        return docs.update(a, s.make(idOf(op.ref), op.v));
      case 'delete':
        return docs.delete(a, idOf(op.ref));
      case 'get':
        return docs.get(a, idOf(op.ref));
      case 'require':
        return docs.require(a, idOf(op.ref), s.def.name, 'id');
      case 'list': {
        const opts: ListOptions = { where: op.where };
        if (op.limit !== undefined) opts.limit = op.limit;
        if (op.cursor === 'after' || op.cursor === 'both') opts.starting_after = idOf(op.ref);
        if (op.cursor === 'before' || op.cursor === 'both') opts.ending_before = idOf(op.ref2);
        return docs.list(a, `/v1/${s.def.name}`, opts);
      }
      case 'total':
        return docs.total(a, op.where);
    }
  };
  // An update is a write whose failure (no such document) is its transaction's, not its call's, on PostgreSQL (the
  // store sends it without waiting: adapters/postgres/db.ts `send`): each update is a transaction of its own, and its
  // answer is that transaction's.
  for (const batch of batches) {
    let part: Op[] = [];
    const flush = async () => {
      const ops = part;
      part = [];
      if (ops.length)
        await grouped(async () => {
          for (const op of ops) out.push(await outcome(() => apply(op)));
        });
    };
    for (const op of batch) {
      if (op.kind !== 'update') {
        part.push(op);
        continue;
      }
      await flush();
      out.push(await outcome(() => grouped(() => apply(op))));
    }
    await flush();
  }
  for (const n of [0, 1]) out.push(await outcome(() => docs.list(acct(n), '/all', { limit: 100 })));
  return out;
}

describe.skipIf(pg.missing !== '')(`documents on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
  let lite: SqliteDatabase;
  let store: PostgresDatabase;
  let runs = 0;

  beforeAll(async () => {
    const url = await pg.migrated();
    store = openPostgresDatabase(url, { max: 2 });
    lite = openSqliteDatabase(':memory:');
  }, 60_000);

  afterAll(async () => {
    lite?.close();
    await store?.end();
  });

  for (const s of specs)
    it(`${s.def.name}: every answer is SQLite's`, async () => {
      const sqliteDocs = asyncDocuments(new Collection(lite, s.def));
      const pgDocs = pgDocuments(store, s.def);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(opArb(s), { minLength: 1, maxLength: 4 }), { minLength: 8, maxLength: 30 }),
          async (batches) => {
            // Each run (shrinking's included) has accounts and ids of its own, on both engines.
            const run = String(++runs);
            const expected = await play((fn) => lite.grouped(fn), sqliteDocs, s, run, batches);
            const got = await play((fn) => store.grouped(fn), pgDocs, s, run, batches);
            expect(got).toEqual(expected);
          },
        ),
        { numRuns: 60 },
      );
    }, 120_000);

  it('a page and its cursors walk every document of a filter once, newest first, on both engines', async () => {
    const s = specs[0]!;
    const engines = [
      { grouped: <R>(fn: () => Promise<R>) => lite.grouped(fn), docs: asyncDocuments(new Collection(lite, s.def)) },
      { grouped: <R>(fn: () => Promise<R>) => store.grouped(fn), docs: pgDocuments(store, s.def) },
    ];
    const walks: string[][][] = [];
    for (const { grouped, docs } of engines) {
      const a = 'acct_walk';
      await grouped(async () => {
        for (let i = 0; i < 12; i++) await docs.insert(a, s.make(`ps_walk_${i}`, i));
        // Two move into `succeeded`, one out of it.
        await docs.update(a, s.make('ps_walk_0', 1));
        await docs.update(a, s.make('ps_walk_3', 4));
        await docs.update(a, s.make('ps_walk_4', 5));
      });
      const where = { status: 'succeeded' };
      const forward: string[][] = [];
      let page = await docs.list(a, '/', { limit: 2, where });
      forward.push(page.data.map((d) => d.id));
      while (page.has_more) {
        page = await docs.list(a, '/', { limit: 2, where, starting_after: page.data.at(-1)!.id });
        forward.push(page.data.map((d) => d.id));
      }
      const backward: string[][] = [];
      page = await docs.list(a, '/', { limit: 2, where, ending_before: page.data[0]!.id });
      backward.push(page.data.map((d) => d.id));
      while (page.has_more) {
        page = await docs.list(a, '/', { limit: 2, where, ending_before: page.data[0]!.id });
        backward.push(page.data.map((d) => d.id));
      }
      expect(page.total_count).toBe(5);
      walks.push([...forward, ['|'], ...backward]);
    }
    // Succeeded: variants 1, 4, 7, 10 and the updated ps_walk_0 (1) and ps_walk_3 (4); ps_walk_4 moved out.
    expect(walks[0]).toEqual([
      ['ps_walk_10', 'ps_walk_7'],
      ['ps_walk_3', 'ps_walk_1'],
      ['ps_walk_0'],
      ['|'],
      ['ps_walk_3', 'ps_walk_1'],
      ['ps_walk_10', 'ps_walk_7'],
    ]);
    expect(walks[1]).toEqual(walks[0]);
  });
});
