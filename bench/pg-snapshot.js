#!/usr/bin/env node
// `node bench/pg-snapshot.js postgres://user@127.0.0.1:PORT/db [N…]`: snapshot times on PostgreSQL
// (adapters/postgres/snapshots.ts) with real rows. An in-memory server makes N sessions, each with a confirmed payment,
// through the API (as bench/snapshot.js does); its database's rows are copied into the PostgreSQL database (emptied
// and migrated first: give it a database of its own); then ROUNDS times: a write (a tenth of the payments updated), a
// named save, a write, a restore, an image, a write, an image restore, every row of the five big tables deleted, a
// restore (`restore_all`: the whole snapshot written). Prints one JSON line per size: the rows' bytes on PostgreSQL,
// the medians and each round's figures (a restore deletes rows: until autovacuum runs, each round finds more dead rows
// than the last).
// Run `npm run build` first.
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { startServer } from '../dist/index.js';
import { openPostgresDatabase } from '../dist/lib/server/adapters/postgres/db.js';
import { migratePostgres } from '../dist/lib/server/adapters/postgres/migrate.js';
import { restoreSnapshot, saveSnapshot } from '../dist/lib/server/adapters/postgres/snapshots.js';
import { image, restoreImage } from '../dist/lib/server/adapters/postgres/snapshot-image.js';
import { seed } from './sessions.js';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: node bench/pg-snapshot.js postgres://user@host:port/db [N…]\n');
  process.exit(2);
}
const sizes = process.argv
  .slice(3)
  .map(Number)
  .filter((n) => n > 0);
const ROUNDS = Number(process.env.BENCH_SNAPSHOT_ROUNDS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Every table of the SQLite database `lite` that PostgreSQL's schema has, copied row for row (into empty tables). */
async function copyRows(lite, sql) {
  const tables = (
    await sql`SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'`
  ).map((r) => r.table_name);
  await sql.unsafe(`TRUNCATE ${tables.map((t) => `"${t}"`).join(', ')}`);
  for (const t of tables) {
    // PostgreSQL's text holds no NUL (SQLite's list counts of NULL values, `char(0)`): those rows are left out.
    const rows = lite
      .prepare(`SELECT * FROM "${t}"`)
      .all()
      .filter((row) => !Object.values(row).some((v) => typeof v === 'string' && v.includes('\u0000')));
    for (let i = 0; i < rows.length; i += 2000)
      await sql.unsafe(
        `INSERT INTO "${t}" OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(null::"${t}", $1::text::json)`,
        [JSON.stringify(rows.slice(i, i + 2000))],
      );
  }
}

const timed = async (fn) => {
  const t0 = performance.now();
  const value = await fn();
  return [value, performance.now() - t0];
};

for (const n of sizes.length ? sizes : [10_000]) {
  const server = await startServer({
    port: 0,
    memory: true,
    dueWorkIntervalMs: 0,
    rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 1e6 },
  });
  await seed(server, n);
  const snap = await server.snapshot();
  await server.close();
  const lite = new Database(snap.image, { readonly: true });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql.unsafe('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  for (const s of await sql`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'payorch\\_snapshot\\_%'`)
    await sql.unsafe(`DROP SCHEMA "${s.nspname}" CASCADE`);
  await migratePostgres(sql);
  await copyRows(lite, sql);
  lite.close();
  const [{ bytes }] = await sql`SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'`;
  const [{ value: keyCheck }] = await sql`SELECT value FROM meta WHERE key = 'sealing_key_check'`;
  await sql.end();
  const store = openPostgresDatabase(url, { max: 4 });
  const write = () => store.grouped(() => store.current()`UPDATE payments SET status = 'bench' WHERE seq % 10 = 0`);
  // Every row gone: a restore then writes the whole snapshot (the most it can have to write).
  const wipe = () =>
    store.grouped(async () => {
      const q = store.current();
      for (const t of ['events', 'ledger_entries', 'journal_entries', 'payments', 'payment_sessions'])
        await q.unsafe(`DELETE FROM ${t}`);
    });
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    await write();
    const [info, save] = await timed(() => saveSnapshot(store, 'bench'));
    await write();
    const [, restore] = await timed(() => restoreSnapshot(store, 'bench', keyCheck));
    const [img, imaging] = await timed(() => image(store));
    await write();
    const [, restoreImg] = await timed(() => restoreImage(store, img, keyCheck));
    await wipe();
    const [, restoreAll] = await timed(() => restoreSnapshot(store, 'bench', keyCheck));
    rounds.push({
      save,
      restore,
      image: imaging,
      restore_image: restoreImg,
      restore_all: restoreAll,
      saved: info.size,
      image_bytes: img.length,
    });
  }
  await store.end();
  const m = (k) => Math.round(median(rounds.map((x) => x[k])));
  process.stdout.write(
    JSON.stringify({
      sessions: n,
      db_bytes: Number(bytes),
      snapshot_bytes: rounds[0].saved,
      image_bytes: rounds[0].image_bytes,
      save_ms: m('save'),
      restore_ms: m('restore'),
      image_ms: m('image'),
      restore_image_ms: m('restore_image'),
      restore_all_ms: m('restore_all'),
      rounds: rounds.map(({ saved: _saved, image_bytes: _imageBytes, ...ms }) =>
        Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(v)])),
      ),
    }) + '\n',
  );
}
