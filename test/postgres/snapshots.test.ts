// Snapshots on PostgreSQL (adapters/postgres/snapshots.ts), on a real PostgreSQL: a restore gives back every domain
// table's rows exactly as saved, and new rows' seqs continue above the restored ones; a snapshot saved through one
// pool is restored through another, and a reader in another pool sees the data before the restore or after it, never
// a mix; names, missing snapshots, another key's or a damaged snapshot get SQLite's errors and change nothing; an image
// (an unnamed snapshot) round-trips. The time of each at 10k sessions with their payments is printed.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPostgresDatabase, type PostgresDatabase } from '../../dist/lib/server/adapters/postgres/db.js';
import { migratePostgres } from '../../dist/lib/server/adapters/postgres/migrate.js';
import { migrations } from '../../dist/lib/server/store/migrations/index.js';
import {
  deleteSnapshot,
  listSnapshots,
  restoreSnapshot,
  saveSnapshot,
  snapshotInfo,
} from '../../dist/lib/server/adapters/postgres/snapshots.js';
import { image, inspectImage, restoreImage } from '../../dist/lib/server/adapters/postgres/snapshot-image.js';
import { SNAPSHOT_SCHEMA } from '../../dist/lib/server/adapters/postgres/snapshot-tables.js';
import { sqliteSnapshots } from '../../dist/lib/server/adapters/sqlite/snapshots.js';
import { deleteSnapshot as deleteSqliteSnapshot } from '../../dist/lib/server/snapshots.js';
import { SnapshotError } from '../../dist/lib/server/store/snapshot-rules.js';
import postgres from 'postgres';
import { postgresServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const pg = postgresServer();
const KEY = 'key-check-of-this-sandbox';

/**
 * A fresh database migrated (up to `upTo`, else to the newest schema) with an account, a key and the sealing key's
 * check; a store over it.
 */
async function fresh(url?: string, upTo?: number): Promise<{ store: PostgresDatabase; url: string }> {
  const u = url ?? (await pg.database());
  if (!url) {
    const sql = postgres(u, { max: 1, onnotice: () => {} });
    await migratePostgres(sql, upTo === undefined ? migrations : migrations.filter((m) => m.version <= upTo));
    await sql.end();
  }
  const store = openPostgresDatabase(u, { max: 4 });
  if (!url)
    await store.grouped(async () => {
      const q = store.current();
      await q`INSERT INTO meta (key, value) VALUES ('sealing_key_check', ${KEY}), ('default_account', 'acct_1')`;
      await q`INSERT INTO accounts (id, created_ms) VALUES ('acct_1', 1), ('acct_2', 2)`;
      await q`INSERT INTO api_keys (id, account_id, hash, last4, created_ms) VALUES ('key_1', 'acct_1', 'h1', 'aaaa', 1)`;
    });
  return { store, url: u };
}

/** `n` sessions, each with a payment and an event, numbered from `from`; `pad` characters of data each. */
async function addObjects(store: PostgresDatabase, from: number, n: number, pad = 40): Promise<void> {
  await store.grouped(async () => {
    const q = store.current();
    const args = [from, from + n - 1, pad];
    await q.unsafe(
      `INSERT INTO payment_sessions (id, account_id, status, external_id, expires_ms, secret_hash, data)
       SELECT 'ps_' || g, 'acct_1', 'requires_payment_method', NULL, 1000 + g, md5(g::text),
              json_build_object('id', 'ps_' || g, 'amount', g, 'note', 'tab\tnew line\nquote"back\\slash',
                                'pad', left(repeat(md5(g::text), $3 / 32 + 1), $3))::text
       FROM generate_series($1::bigint, $2::bigint) g`,
      args,
    );
    await q.unsafe(
      `INSERT INTO payments (id, account_id, session_id, status, settle_ms, data)
       SELECT 'pay_' || g, 'acct_1', 'ps_' || g, 'succeeded', CASE WHEN g % 2 = 0 THEN g END,
              json_build_object('id', 'pay_' || g, 'amount', g, 'pad', left(repeat(md5('p' || g), $3 / 32 + 1), $3))::text
       FROM generate_series($1::bigint, $2::bigint) g`,
      args,
    );
    await q.unsafe(
      `INSERT INTO events (id, account_id, type, object_id, created_ms, body)
       SELECT 'evt_' || g, 'acct_1', 'payment.succeeded', 'pay_' || g, g, '{}' FROM generate_series($1::bigint, $2::bigint) g`,
      args.slice(0, 2),
    );
  });
}

/**
 * Every domain table's rows (all of them, in a stable order), as text: what a restore must give back — but the keys'
 * change mark, which a restore moves on purpose (every process's key cache looks again: adapters/postgres/core.ts).
 */
async function contents(store: PostgresDatabase): Promise<Record<string, string>> {
  return store.read(async () => {
    const q = store.current();
    const tables = await q<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'
      ORDER BY table_name`;
    const out: Record<string, string> = {};
    for (const { table_name: t } of tables) {
      const [row] = await q.unsafe<{ j: string }[]>(
        `SELECT COALESCE(json_agg(x ORDER BY x::text), '[]')::text AS j FROM "${t}" x${t === 'meta' ? " WHERE key <> 'api_keys_mark'" : ''}`,
      );
      out[t] = row!.j;
    }
    return out;
  });
}

/** Changes rows of several tables: inserted, updated, deleted. */
async function change(store: PostgresDatabase): Promise<void> {
  await addObjects(store, 100_000, 3);
  await store.grouped(async () => {
    const q = store.current();
    await q`UPDATE payments SET status = 'refunded', data = '{"changed":true}' WHERE id = 'pay_1'`;
    await q`DELETE FROM payments WHERE id = 'pay_2'`;
    await q`DELETE FROM api_keys`;
    await q`INSERT INTO list_counts (tbl, account_id, cols, vals, n) VALUES ('payments', 'acct_1', '', '', 99)`;
  });
}

const seqOfNew = async (store: PostgresDatabase, id: string): Promise<number> => {
  const [row] = await store.grouped(
    () =>
      store.current()<{ seq: number }[]>`INSERT INTO events (id, account_id, type, object_id, created_ms, body)
        VALUES (${id}, 'acct_1', 't', 'o', 1, '{}') RETURNING seq`,
  );
  return row!.seq;
};

const maxSeq = async (store: PostgresDatabase) =>
  (await store.read(() => store.current()<{ m: number }[]>`SELECT max(seq) AS m FROM events`))[0]!.m;

async function errorOf(p: Promise<unknown>): Promise<{ code?: string; message: string; name: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as SnapshotError;
    return { code: e.code, message: e.message, name: e.name };
  }
  throw new Error('it did not fail');
}

describe.skipIf(pg.missing !== '')(`snapshots on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
  it('restores every domain table as saved, through another pool, with new seqs above the restored ones', async () => {
    const { store, url } = await fresh();
    const other = openPostgresDatabase(url, { max: 2 });
    try {
      await addObjects(store, 1, 20);
      const saved = await contents(store);
      const top = await maxSeq(store);
      const info = await saveSnapshot(store, 'base');
      expect(info).toMatchObject({ object: 'snapshot', name: 'base', schema_version: SNAPSHOT_SCHEMA });
      expect(info.size).toBeGreaterThan(0);
      expect(Date.parse(info.created_at)).toBeGreaterThan(Date.now() - 60_000);
      // Saving touched no domain table.
      expect(await contents(store)).toEqual(saved);

      await change(store);
      const changed = await contents(store);
      expect(changed).not.toEqual(saved);
      expect(await maxSeq(store)).toBeGreaterThan(top);

      // Saved through one pool, restored through another (another process).
      await restoreSnapshot(other, 'base', KEY);
      expect(await contents(store)).toEqual(saved);
      // The events' sequence is where it stood at the save: the next number follows the restored ones.
      expect(await seqOfNew(store, 'evt_new')).toBe(top + 1);

      // A snapshot can be restored again, and its own contents are untouched by a restore.
      await change(other);
      await restoreSnapshot(store, 'base', KEY);
      expect(await contents(other)).toEqual(saved);
    } finally {
      await other.end();
      await store.end();
    }
  });

  it('replaces a snapshot of the same name, lists and deletes them, with SQLite’s answers and errors', async () => {
    const { store } = await fresh();
    try {
      expect(await listSnapshots(store)).toEqual([]);
      // The errors of a data directory with no snapshots, and with snapshots `a` and `b`, on SQLite.
      const dir = tempDir('payorch-pgsnap-');
      const sqliteMissing = () =>
        errorOf(Promise.resolve().then(() => deleteSqliteSnapshot(sqliteSnapshots, dir, 'nope')));
      const none = await sqliteMissing();
      expect(await errorOf(restoreSnapshot(store, 'nope', KEY))).toEqual(none);
      expect(await errorOf(deleteSnapshot(store, 'nope'))).toEqual(none);
      expect(await errorOf(snapshotInfo(store, 'nope'))).toEqual(none);
      expect(none.code).toBe('snapshot_missing');

      await addObjects(store, 1, 2);
      await saveSnapshot(store, 'b');
      await saveSnapshot(store, 'a');
      await change(store);
      const second = await contents(store);
      const replaced = await saveSnapshot(store, 'a'); // replaces the first `a`
      expect(replaced.name).toBe('a');
      expect((await listSnapshots(store)).map((s) => s.name)).toEqual(['a', 'b']);

      mkdirSync(join(dir, 'snapshots'), { recursive: true });
      for (const n of ['a', 'b']) writeFileSync(join(dir, 'snapshots', `${n}.sqlite`), '');
      const some = await sqliteMissing();
      expect(some.message).toContain('(snapshots: a, b)');
      expect(await errorOf(restoreSnapshot(store, 'nope', KEY))).toEqual(some);
      expect(await errorOf(deleteSnapshot(store, 'nope'))).toEqual(some);

      for (const bad of ['', '../x', '.hidden', 'a b', 'x'.repeat(65)]) {
        const sqlite = await errorOf(Promise.resolve().then(() => deleteSqliteSnapshot(sqliteSnapshots, dir, bad)));
        expect(sqlite.code).toBe('invalid_name');
        expect(await errorOf(saveSnapshot(store, bad))).toEqual(sqlite);
        expect(await errorOf(restoreSnapshot(store, bad, KEY))).toEqual(sqlite);
        expect(await errorOf(deleteSnapshot(store, bad))).toEqual(sqlite);
      }
      // Names are case-sensitive, up to 64 characters.
      const long = 'A'.repeat(64);
      await saveSnapshot(store, long);
      expect(await errorOf(restoreSnapshot(store, 'a'.repeat(64), KEY))).toMatchObject({ code: 'snapshot_missing' });

      await restoreSnapshot(store, 'b', KEY);
      await restoreSnapshot(store, 'a', KEY);
      expect(await contents(store)).toEqual(second);

      const gone = await deleteSnapshot(store, 'a');
      expect(gone).toMatchObject({ object: 'snapshot', name: 'a', schema_version: SNAPSHOT_SCHEMA });
      expect((await listSnapshots(store)).map((s) => s.name)).toEqual([long, 'b']);
      expect(await errorOf(restoreSnapshot(store, 'a', KEY))).toMatchObject({ code: 'snapshot_missing' });
    } finally {
      await store.end();
    }
  });

  it('refuses a snapshot or image of another sealing key, or a damaged image, and changes nothing', async () => {
    const { store } = await fresh();
    const { store: elsewhere } = await fresh();
    try {
      await addObjects(store, 1, 5);
      await saveSnapshot(store, 'mine');
      await store.grouped(() => store.current()`UPDATE meta SET value = 'another-key' WHERE key = 'sealing_key_check'`);
      await saveSnapshot(store, 'theirs');
      await store.grouped(() => store.current()`UPDATE meta SET value = ${KEY} WHERE key = 'sealing_key_check'`);
      await change(store);
      const before = await contents(store);

      const refused = await errorOf(restoreSnapshot(store, 'theirs', KEY));
      expect(refused.code).toBe('invalid_snapshot');
      expect(refused.message).toBe(
        'Snapshot "theirs" cannot be restored: it was taken of another data directory (its secrets are sealed with another key). Nothing was changed.',
      );
      expect(await contents(store)).toEqual(before);

      await elsewhere.grouped(
        () => elsewhere.current()`UPDATE meta SET value = 'another-key' WHERE key = 'sealing_key_check'`,
      );
      const theirs = await image(elsewhere);
      expect(inspectImage(theirs)).toEqual({ schema: SNAPSHOT_SCHEMA, keyCheck: 'another-key' });
      expect(await errorOf(restoreImage(store, theirs, KEY))).toMatchObject({
        code: 'invalid_snapshot',
        message: expect.stringContaining('sealed with another key'),
      });
      const mine = await image(store);
      const flipped = (at: number) => {
        const copy = Buffer.from(mine);
        copy[at] = copy[at]! ^ 1;
        return copy;
      };
      for (const [bad, why] of [
        [mine.subarray(0, mine.length - 1), 'it is cut short'],
        [Buffer.from('SQLite format 3\u0000 and more'), 'it is not a payorch PostgreSQL image'],
        [flipped(mine.indexOf('"schema"')), 'it is damaged (its header cannot be read)'],
        [flipped(mine.length - 3), 'it is damaged (its rows are not those it was made with)'],
      ] as const) {
        expect(await errorOf(restoreImage(store, bad, KEY))).toMatchObject({
          code: 'invalid_snapshot',
          message: expect.stringContaining(`Snapshot in memory cannot be restored: ${why}`),
        });
      }
      expect(await contents(store)).toEqual(before);
      await restoreSnapshot(store, 'mine', KEY);
      expect(await contents(store)).not.toEqual(before);
    } finally {
      await elsewhere.end();
      await store.end();
    }
  });

  it('round-trips an image, through another pool, with the sequences where they stood', async () => {
    const { store, url } = await fresh();
    const other = openPostgresDatabase(url, { max: 2 });
    try {
      await addObjects(store, 1, 30);
      const saved = await contents(store);
      const top = await maxSeq(store);
      const img = await image(store);
      expect(inspectImage(img)).toEqual({ schema: SNAPSHOT_SCHEMA, keyCheck: KEY });
      await change(store);
      await restoreImage(other, img, KEY);
      expect(await contents(store)).toEqual(saved);
      expect(await seqOfNew(store, 'evt_after')).toBe(top + 1);
      // The image can be restored again.
      await restoreImage(store, img, KEY);
      expect(await contents(other)).toEqual(saved);
    } finally {
      await other.end();
      await store.end();
    }
  });

  it('migrates a snapshot or image of an older schema as the database itself was migrated', async () => {
    // Version 903 deletes the kept counts of narrow filters: a snapshot taken before it has such a row.
    const old = 902;
    const { store, url } = await fresh(undefined, old);
    try {
      await addObjects(store, 1, 5);
      await store.grouped(
        () => store.current()`INSERT INTO list_counts (tbl, account_id, cols, vals, n)
          VALUES ('payments', 'acct_1', 'session_id', 'ps_1', 1), ('payments', 'acct_1', 'status', 'succeeded', 5)`,
      );
      expect(await saveSnapshot(store, 'old')).toMatchObject({ schema_version: old });
      const img = await image(store);
      expect(inspectImage(img).schema).toBe(old);
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      await migratePostgres(sql);
      await sql.end();
      // What the database became, migrated: what a restore of either must give.
      const migratedRows = await contents(store);
      expect(migratedRows.list_counts).not.toContain('session_id');
      expect(migratedRows.list_counts).toContain('succeeded');

      await change(store);
      await restoreSnapshot(store, 'old', KEY);
      expect(await contents(store)).toEqual(migratedRows);
      await change(store);
      await restoreImage(store, img, KEY);
      expect(await contents(store)).toEqual(migratedRows);
      // The restore's own schema is gone with its transaction's end.
      const left = await store.read(
        () =>
          store.current()<
            { n: number }[]
          >`SELECT count(*)::bigint AS n FROM pg_namespace WHERE nspname LIKE 'payorch\_restore\_%'`,
      );
      expect(left[0]!.n).toBe(0);
      expect(await listSnapshots(store)).toMatchObject([{ name: 'old', schema_version: old }]);
    } finally {
      await store.end();
    }
  });

  it('is atomic for a reader in another pool: two tables counted in one read agree, before and after', async () => {
    const { store, url } = await fresh();
    const reader = openPostgresDatabase(url, { max: 3 });
    try {
      await addObjects(store, 1, 10);
      await saveSnapshot(store, 'ten');
      await addObjects(store, 11, 10);
      await saveSnapshot(store, 'twenty');
      const img = await image(store);
      let restoring = true;
      const seen = new Map<string, number>();
      const read = async () => {
        while (restoring) {
          const pair = await reader.read(async () => {
            const q = reader.current();
            const [a] = await q<{ n: number }[]>`SELECT count(*)::bigint AS n FROM payments`;
            const [b] = await q<{ n: number }[]>`SELECT count(*)::bigint AS n FROM payment_sessions`;
            return `${a!.n}/${b!.n}`;
          });
          seen.set(pair, (seen.get(pair) ?? 0) + 1);
        }
      };
      const readers = [read(), read(), read()];
      for (let i = 0; i < 6; i++) {
        await restoreSnapshot(store, i % 2 === 0 ? 'ten' : 'twenty', KEY);
        if (i === 2) await restoreImage(store, img, KEY);
      }
      restoring = false;
      await Promise.all(readers);
      expect([...seen.keys()].sort()).toEqual(['10/10', '20/20']);
    } finally {
      await reader.end();
      await store.end();
    }
  });

  it('writes only the rows that differ, and a read that began before the restore sees the old rows, all of them', async () => {
    const { store, url } = await fresh();
    const reader = openPostgresDatabase(url, { max: 2 });
    const xmins = async () =>
      new Map(
        (
          await store.read(() => store.current()<{ id: string; x: string }[]>`SELECT id, xmin::text AS x FROM payments`)
        ).map((r) => [r.id, r.x]),
      );
    try {
      await addObjects(store, 1, 50);
      await saveSnapshot(store, 'base');
      const saved = await contents(store);
      await change(store);
      await store.grouped(() => store.current()`UPDATE payments SET settle_ms = 7 WHERE id = 'pay_3'`);
      const changed = await contents(store);
      const before = await xmins();

      // A read whose snapshot is taken (it reads a table a restore does not lock) before the restore commits, and
      // which reads the domain tables after it.
      let taken!: () => void;
      const snapshotTaken = new Promise<void>((resolve) => (taken = resolve));
      let restored!: () => void;
      const restoreDone = new Promise<void>((resolve) => (restored = resolve));
      const oldRead = reader.read(async () => {
        await reader.current()`SELECT count(*) FROM schema_migrations`;
        taken();
        await restoreDone;
        return contents(reader);
      });
      await snapshotTaken;
      await restoreSnapshot(store, 'base', KEY);
      restored();
      // Not empty tables (TRUNCATE's), not a mix: the data as it was when its snapshot was taken.
      expect(await oldRead).toEqual(changed);
      expect(await contents(reader)).toEqual(saved);

      // The rows that were as saved were not written (their row versions are the same); those that differed were.
      const after = await xmins();
      const rewritten = [...after].filter(([id, x]) => before.get(id) !== x).map(([id]) => id);
      expect(rewritten.sort()).toEqual(['pay_1', 'pay_2', 'pay_3']);
    } finally {
      await reader.end();
      await store.end();
    }
  });

  it('round-trips every column type of the schema and any text, in both forms of an image (JSON, COPY binary)', async () => {
    const { store } = await fresh();
    try {
      // The types the domain tables use (fault rules' float is not data) are among those probed here.
      const used = await store.read(
        () => store.current()<{ data_type: string }[]>`
          SELECT DISTINCT data_type FROM information_schema.columns
          WHERE table_schema = current_schema()
            AND table_name NOT IN ('schema_migrations', 'fault_rules', 'request_log', 'request_log_seqs')`,
      );
      const probed = ['bigint', 'text', 'integer', 'double precision', 'numeric', 'json', 'boolean'];
      expect(used.map((r) => r.data_type).filter((t) => !probed.includes(t))).toEqual([]);
      await store.grouped(async () => {
        const q = store.current();
        for (const name of ['probe_small', 'probe_big']) {
          await q.unsafe(
            `CREATE TABLE ${name} (k bigint PRIMARY KEY, t text, b bigint, i integer, f double precision, n numeric,
                                   j json, z boolean)`,
          );
          await q.unsafe(
            `INSERT INTO ${name} VALUES
               (1, E'tab\\there new\\nline cr\\rhere back\\\\slash', -9223372036854775808, -2147483648, '-0', '1.000',
                '{"b": 2,  "a":[1, 2.50]}', true),
               (2, E'\\\\N', 9223372036854775807, 2147483647, 'NaN', 'NaN', 'null', false),
               (3, '', 0, 0, 'Infinity', '-0.0000001', '"text"', NULL),
               (4, NULL, NULL, NULL, '-Infinity', NULL, NULL, NULL),
               (5, 'é ✓ 😀 "quoted" ''single''', 1, 1, 5e-324, 123456789012345678901234567890.123, '[]', true),
               (6, repeat('x', 5000), 2, 2, 0.1, 0, '{}', false),
               (7, 'end', 3, 3, 1.7976931348623157e308, 1e-20, '{"é": "\\n\\u00e9"}', true)`,
          );
        }
        // Big enough to be in an image as COPY's binary format (the small one is JSON).
        await q`INSERT INTO probe_big (k, t) SELECT g, repeat(md5(g::text), 4) FROM generate_series(100, 4099) g`;
      });
      const img = await image(store);
      const header = JSON.parse(img.toString('utf8').split('\n')[1]!) as {
        tables: { name: string; format: string }[];
      };
      expect(header.tables.filter((t) => t.name.startsWith('probe_'))).toEqual([
        expect.objectContaining({ name: 'probe_big', format: 'binary' }),
        expect.objectContaining({ name: 'probe_small', format: 'json' }),
      ]);
      const saved = await contents(store);
      await store.grouped(async () => {
        const q = store.current();
        await q`UPDATE probe_big SET t = 'changed', f = 0 WHERE k IN (1, 5, 100)`;
        await q`DELETE FROM probe_small`;
      });
      expect(await contents(store)).not.toEqual(saved);
      await restoreImage(store, img, KEY);
      expect(await contents(store)).toEqual(saved);
    } finally {
      await store.end();
    }
  });

  it('makes an image of a table of few rows on many pages (its COPY arrives in one read), and the pool goes on', async () => {
    const { store } = await fresh();
    try {
      await store.grouped(async () => {
        const q = store.current();
        // Dead rows kept (no autovacuum): the table is big (COPY), its rows ~30 KB, which arrive at once.
        await q`CREATE TABLE probe_sparse (k bigint PRIMARY KEY, t text) WITH (autovacuum_enabled = false)`;
        await q`INSERT INTO probe_sparse SELECT g, repeat(md5(g::text), 8) FROM generate_series(1, 4000) g`;
        await q`DELETE FROM probe_sparse WHERE k > 100`;
      });
      const saved = await contents(store);
      for (let i = 0; i < 3; i++) {
        const img = await image(store);
        const header = JSON.parse(img.toString('utf8').split('\n')[1]!) as {
          tables: { name: string; format: string }[];
        };
        expect(header.tables.find((t) => t.name === 'probe_sparse')?.format).toBe('binary');
        await store.grouped(() => store.current()`DELETE FROM probe_sparse WHERE k < 10`);
        await restoreImage(store, img, KEY);
        expect(await contents(store)).toEqual(saved);
      }
    } finally {
      await store.end();
    }
  });

  it('fails, changing nothing, when PostgreSQL refuses the rows of an image once they are all sent, and goes on', async () => {
    const { store } = await fresh();
    try {
      await store.grouped(async () => {
        const q = store.current();
        await q`CREATE TABLE probe_big (k bigint PRIMARY KEY, t text)`;
        await q`INSERT INTO probe_big SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, 4000) g`;
      });
      await addObjects(store, 1, 5);
      const img = await image(store);
      // A COPY's binary rows end with a field count of -1; here, with a row of two fields that never come: PostgreSQL
      // finds the rows cut short only at the end of the COPY, once the driver has sent it. The hash is made right.
      const lines = img.toString('latin1').split('\n');
      const header = JSON.parse(lines[1]!) as { tables: { name: string; bytes: number }[]; sha256: string };
      const start = lines[0]!.length + lines[1]!.length + 2;
      let end = 0;
      for (const t of header.tables) {
        end += t.bytes;
        if (t.name === 'probe_big') break;
      }
      const body = Buffer.from(img.subarray(start));
      expect(body.readInt16BE(end - 2)).toBe(-1);
      body.writeInt16BE(2, end - 2);
      header.sha256 = createHash('sha256').update(body).digest('hex');
      const forged = Buffer.concat([Buffer.from(`${lines[0]}\n${JSON.stringify(header)}\n`), body]);

      await store.grouped(() => store.current()`DELETE FROM probe_big WHERE k < 10`);
      const before = await contents(store);
      expect(await errorOf(restoreImage(store, forged, KEY))).toMatchObject({
        code: 'invalid_snapshot',
        message: expect.stringContaining(
          'Snapshot in memory cannot be restored: PostgreSQL refused its rows of table probe_big',
        ),
      });
      expect(await contents(store)).toEqual(before);
      // Every connection of the pool still answers: the image restores, and another is made and restored.
      await restoreImage(store, img, KEY);
      expect(await contents(store)).not.toEqual(before);
      await restoreImage(store, await image(store), KEY);
    } finally {
      await store.end();
    }
  });

  it('restores any table of the schema: with no primary key, tied by a foreign key, of floats and json, ids moved', async () => {
    const { store } = await fresh();
    try {
      await store.grouped(async () => {
        const q = store.current();
        await q`CREATE TABLE probe_floats (seq bigint PRIMARY KEY, f double precision, n numeric, j json)`;
        await q`CREATE TABLE probe_nokey (a text, b bigint)`;
        await q`CREATE TABLE probe_parent (id text PRIMARY KEY, label text)`;
        await q`CREATE TABLE probe_child (seq bigint PRIMARY KEY, parent text NOT NULL REFERENCES probe_parent (id))`;
        await q`INSERT INTO probe_floats VALUES (1, 0, 1, '[]'), (2, 1.5, 2.0, '[]'), (3, NULL, NULL, NULL), (4, 4, 4, '{"b": 2}')`;
        await q`INSERT INTO probe_nokey VALUES ('d', 1), ('d', 1), ('e', NULL)`;
        await q`INSERT INTO probe_parent VALUES ('p1', 'one'), ('p2', 'two')`;
        await q`INSERT INTO probe_child VALUES (1, 'p1'), (2, 'p2')`;
      });
      await addObjects(store, 1, 5);
      await saveSnapshot(store, 'probe');
      const img = await image(store);
      const saved = await contents(store);
      const scramble = () =>
        store.grouped(async () => {
          const q = store.current();
          await q`UPDATE probe_floats SET f = '-0'::float8 WHERE seq = 1`;
          await q`UPDATE probe_floats SET f = 2 WHERE seq = 3`;
          // Equal, not the same: 2.0 = 2.00; json has no equality at all.
          await q`UPDATE probe_floats SET n = 2.00 WHERE seq = 2`;
          await q`UPDATE probe_floats SET j = '{"b":2}' WHERE seq = 4`;
          await q`DELETE FROM probe_nokey WHERE ctid = (SELECT min(ctid) FROM probe_nokey WHERE a = 'd')`;
          await q`INSERT INTO probe_nokey VALUES ('e', NULL)`;
          // A parent changed whose child is not, and a child moved to another parent.
          await q`UPDATE probe_parent SET label = 'uno' WHERE id = 'p1'`;
          await q`UPDATE probe_child SET parent = 'p1' WHERE seq = 2`;
          // Two rows' unique ids swapped (as a seeded server's ids can land on other seqs after a restore).
          await q`UPDATE payments SET id = 'tmp' WHERE id = 'pay_1'`;
          await q`UPDATE payments SET id = 'pay_1' WHERE id = 'pay_2'`;
          await q`UPDATE payments SET id = 'pay_2' WHERE id = 'tmp'`;
        });
      await scramble();
      expect(await contents(store)).not.toEqual(saved);
      await restoreSnapshot(store, 'probe', KEY);
      expect(await contents(store)).toEqual(saved);
      await scramble();
      await restoreImage(store, img, KEY);
      expect(await contents(store)).toEqual(saved);
    } finally {
      await store.end();
    }
  });

  it('saves and restores 10k sessions with their payments (timings printed)', async () => {
    const { store } = await fresh();
    try {
      await addObjects(store, 1, 10_000, 2000);
      const t = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
        const t0 = performance.now();
        const v = await fn();
        return [v, Math.round(performance.now() - t0)];
      };
      const [info, save] = await t(() => saveSnapshot(store, 'big'));
      await change(store);
      const [, restore] = await t(() => restoreSnapshot(store, 'big', KEY));
      const [img, imaging] = await t(() => image(store));
      await change(store);
      const [, restoreImg] = await t(() => restoreImage(store, img, KEY));
      console.log(
        `10k sessions + 10k payments + 10k events (${Math.round(info.size / 1e6)} MB saved, image ${Math.round(img.length / 1e6)} MB): ` +
          `save ${save} ms, restore ${restore} ms, image ${imaging} ms, restore image ${restoreImg} ms`,
      );
      const [row] = await store.read(
        () => store.current()<{ n: number }[]>`SELECT count(*)::bigint AS n FROM payments`,
      );
      expect(row!.n).toBe(10_000);
    } finally {
      await store.end();
    }
  }, 120_000);
});
