// One history, two engines: every migration runs on SQLite (`sql`) and on PostgreSQL (`postgres`, or `sql` where the
// text serves both), and a fresh database migrated by each has the same tables, columns, keys and indexes. Migrating
// again is a no-op, and processes that start on one PostgreSQL database at once apply each version once.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../dist/lib/server/store/migrations/index.js';
import { migratePostgres } from '../../dist/lib/server/adapters/postgres/migrate.js';
import { openSqliteDatabase } from '../../dist/lib/server/adapters/sqlite/db.js';
import { postgresServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * SHA-256 of each released version's PostgreSQL form; null where the version has none (its `sql` serves both).
 * Add a line with each new version; never edit one (a change is a new migration).
 */
const RELEASED_POSTGRES: Record<number, string | null> = {
  1: '85224398816f13f185e03011fc473e4a1ca423b30baf5ccc465c909dd6199163',
  2: '79eafe7175f2e1864df4fcfa9f801c16ff45de27ab6bb920590929b717b0483c',
  3: '740aec07b19b3d688befc25b8b98d647a06f04794910eccf589bd29bbe236d24',
  100: 'ab5b10660feec7eb556ad652dcab6bb693f836df678126424fdb7d2d920d169c',
  101: 'fe4e355c19814a0991949ce7c6933548b9b364e4e085f8bcc51b8087c76bfd90',
  200: 'b3b234062d05aaf498788f6e56802f81874c91f429b1e39b889de9da0ba267ad',
  201: 'e64775cd84f0501e0fd5839a10a1c0125777e6382089f4cd8d10d69f2e167372',
  202: 'bee40f349fb0a3441019fd67b24ef9da79b9a6b49e513b1702f4929f2a34b321',
  203: '7662f1a0bd525186c7c9051a1d48381b0e941e9cb6a70b22e5f300380417d83a',
  204: null,
  300: '639d79d8dc94ecccb8c9f0fcb53615316a2b8f7ad4190cb301b338910275c735',
  400: '16e261d1103c103e6418161956effafa939fbecc329470c4c66c3daf744f3d75',
  500: '4367164d847359a568bfdef6ee47bf596abeb14851bac3be4305272dcaba5549',
  501: 'fa7e58f0f45d966763e05ef488707d9192fc9b3ecc02a073de8d80b5926abf92',
  502: null,
  503: null,
  504: 'b2f99eb0a1ab6c62e77b16019c13d6efa5835e9a7f04afc6202fb4ade10fb9a7',
  505: 'e4042c691ea0ad69272d8b26cc4c15094cca8c9a4c8ae843eb4cc0ba0b5b536b',
  900: '621d600433da824a9a864db6e26495bb714146aba7ff501a4c96ca5447237761',
  901: null,
  902: '4e0b7f795ddf962b8f4043c7c3ea0517bbe3f76c6e2b35a97c2f790b2ce84313',
  903: null,
  905: '84f4412625a531f43a9507202566792371b0f51be0cfdb35bf87c32afbdde003',
  907: '6dc9cb76e20d80aa959f1d6ec390bd19c6ae32146c10c670e3d830098213bdf0',
  909: 'ce6fbf0b3006ffeefa1ee26af140b79faa3fd2ed81221c7b757abdf7a44d0dab',
  910: '8b0310641fd4308cc32f2cdd2a41f77d02ac116e9eab54f11f80286008efa027',
};

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('released migrations, PostgreSQL forms', () => {
  it('each released version has exactly the PostgreSQL form it was released with (or none)', () => {
    const actual = Object.fromEntries(
      migrations
        .filter((m) => m.version in RELEASED_POSTGRES)
        .map((m) => [m.version, m.postgres === undefined ? null : sha(m.postgres)]),
    );
    expect(actual).toEqual(RELEASED_POSTGRES);
  });

  it('a PostgreSQL form is given only where the dialects differ', () => {
    for (const m of migrations) expect(m.postgres, `version ${m.version}`).not.toBe(m.sql);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The schema of a database, in terms both engines share. Types: SQLite's INTEGER is PostgreSQL's bigint (both 64-bit),
// TEXT text, REAL double precision; SQLite's `INTEGER PRIMARY KEY` (a rowid) is PostgreSQL's identity column. A
// primary key column is NOT NULL on both (SQLite reports it nullable). Column order is not compared: SQLite rebuilds
// tables where PostgreSQL alters them, and the stores name every column they read and write.

interface Column {
  type: string;
  notNull: boolean;
  default: string | null;
  identity: boolean;
}
interface Index {
  unique: boolean;
  columns: string[];
  where: string | null;
}
interface Table {
  columns: Record<string, Column>;
  primaryKey: string[];
  unique: string[][];
  foreignKeys: string[];
  checks: string[];
  indexes: Record<string, Index>;
}
type Schema = Record<string, Table>;

/** The runners' own bookkeeping, and SQLite's. */
const IGNORED = new Set(['schema_migrations', 'sqlite_sequence']);

const SQLITE_TYPES: Record<string, string> = { INTEGER: 'integer', TEXT: 'text', REAL: 'real' };
const PG_TYPES: Record<string, string> = { bigint: 'integer', text: 'text', 'double precision': 'real' };

/** An index key or predicate, spelled the same for both engines. */
function normalizeExpr(e: string): string {
  return e
    .replace(/json_extract\(\s*data\s*,\s*'\$\.([a-z_]+)'\s*\)/g, 'data.$1')
    .replace(/\(*data\)?::jsonb\)?\s*->>\s*'([a-z_]+)'(::text)?/g, 'data.$1')
    .replace(/::(text|bigint)/g, '')
    .replace(/<>/g, '!=')
    .replace(/[()]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The comma-separated terms of `s` at parenthesis depth 0. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim());
}

function sqliteSchema(file: string): Schema {
  const store = openSqliteDatabase(file);
  try {
    const q = <T>(sql: string, ...args: unknown[]) => store.db.prepare(sql).all(...args) as T[];
    const schema: Schema = {};
    const names = q<{ name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name",
    ).filter((t) => !IGNORED.has(t.name));
    for (const { name, sql } of names) {
      const info = q<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
        'SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)',
        name,
      );
      const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
      const rowid = pk.length === 1 && pk[0]!.type === 'INTEGER' && !/WITHOUT ROWID/.test(sql);
      const columns: Record<string, Column> = {};
      for (const c of info)
        columns[c.name] = {
          type: SQLITE_TYPES[c.type] ?? `sqlite:${c.type}`,
          notNull: c.notnull === 1 || c.pk > 0,
          default: c.dflt_value,
          identity: rowid && c.pk === 1,
        };
      const indexList = q<{ name: string; unique: number; origin: string }>(
        'SELECT name, "unique", origin FROM pragma_index_list(?)',
        name,
      );
      const keyColumns = (index: string) =>
        q<{ name: string }>('SELECT name FROM pragma_index_info(?) ORDER BY seqno', index).map((r) => r.name);
      const indexes: Record<string, Index> = {};
      for (const i of indexList.filter((x) => x.origin === 'c')) {
        const isql = store.db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(i.name) as string;
        const m = /\bON\s+\w+\s*\(/i.exec(isql)!;
        let depth = 1;
        let end = m.index + m[0].length;
        while (depth > 0) {
          if (isql[end] === '(') depth++;
          if (isql[end] === ')') depth--;
          end++;
        }
        const keys = splitTop(isql.slice(m.index + m[0].length, end - 1)).map(normalizeExpr);
        const where = /\)\s+WHERE\s+(.*)$/is.exec(isql.slice(end - 1));
        indexes[i.name] = { unique: i.unique === 1, columns: keys, where: where ? normalizeExpr(where[1]!) : null };
      }
      schema[name] = {
        columns,
        primaryKey: pk.map((c) => c.name),
        unique: indexList
          .filter((x) => x.origin === 'u')
          .map((x) => keyColumns(x.name))
          .sort(),
        foreignKeys: q<{ from: string; table: string; to: string }>(
          'SELECT "from", "table", "to" FROM pragma_foreign_key_list(?)',
          name,
        )
          .map((f) => `${f.from} -> ${f.table}(${f.to})`)
          .sort(),
        checks: [...sql.matchAll(/^\s*(\w+) [^\n]*\bCHECK\b/gm)].map((x) => x[1]!).sort(),
        indexes,
      };
    }
    return schema;
  } finally {
    store.close();
  }
}

async function postgresSchema(sql: postgres.Sql): Promise<Schema> {
  const schema: Schema = {};
  const tables = await sql<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`;
  for (const { name } of tables) {
    if (IGNORED.has(name)) continue;
    const cols = await sql<
      { name: string; type: string; nullable: string; dflt: string | null; identity: string }[]
    >`SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt,
        is_identity AS identity
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${name}`;
    const columns: Record<string, Column> = {};
    for (const c of cols)
      columns[c.name] = {
        type: PG_TYPES[c.type] ?? `postgres:${c.type}`,
        notNull: c.nullable === 'NO',
        default: c.dflt === null ? null : c.dflt.replace(/::[a-z ]+$/, '').replace(/^'(.*)'$/, '$1'),
        identity: c.identity === 'YES',
      };
    const constraints = await sql<{ type: string; columns: string[]; def: string; ref: string | null }[]>`
      SELECT c.contype::text AS type,
        ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
              JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS columns,
        pg_get_constraintdef(c.oid) AS def,
        (SELECT r.relname::text || '(' || (SELECT string_agg(a.attname::text, ',') FROM unnest(c.confkey) k(n)
              JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) || ')'
           FROM pg_class r WHERE r.oid = c.confrelid) AS ref
      FROM pg_constraint c WHERE c.conrelid = ${name}::regclass`;
    const idx = await sql<{ name: string; unique: boolean; keys: string[]; pred: string | null }[]>`
      SELECT ic.relname::text AS name, i.indisunique AS unique,
        ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) k) AS keys,
        pg_get_expr(i.indpred, i.indrelid) AS pred
      FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
      WHERE i.indrelid = ${name}::regclass
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid)`;
    const indexes: Record<string, Index> = {};
    for (const i of idx)
      indexes[i.name] = {
        unique: i.unique,
        columns: i.keys.map(normalizeExpr),
        where: i.pred === null ? null : normalizeExpr(i.pred),
      };
    schema[name] = {
      columns,
      primaryKey: constraints.find((c) => c.type === 'p')?.columns ?? [],
      unique: constraints
        .filter((c) => c.type === 'u')
        .map((c) => c.columns)
        .sort(),
      foreignKeys: constraints
        .filter((c) => c.type === 'f')
        .map((c) => `${c.columns.join(',')} -> ${c.ref}`)
        .sort(),
      checks: constraints
        .filter((c) => c.type === 'c')
        .map((c) => c.columns.join(','))
        .sort(),
      indexes,
    };
  }
  return schema;
}

/** Rows the migrations themselves write (the count series the store keeps, and none kept yet). */
const sqliteRows = (file: string) => {
  const store = openSqliteDatabase(file);
  try {
    return {
      count_specs: store.db.prepare('SELECT tbl, cols FROM count_specs ORDER BY tbl, cols').raw().all(),
      list_counts: store.db.prepare('SELECT count(*) FROM list_counts').pluck().get(),
      triggers: store.db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").pluck().get(),
    };
  } finally {
    store.close();
  }
};
const postgresRows = async (sql: postgres.Sql) => ({
  count_specs:
    (await sql`SELECT tbl, cols FROM count_specs ORDER BY tbl COLLATE "C", cols COLLATE "C"`.values()) as unknown[],
  list_counts: Number((await sql`SELECT count(*)::int AS n FROM list_counts`)[0]!.n),
  triggers: Number((await sql`SELECT count(*)::int AS n FROM pg_trigger t WHERE NOT t.tgisinternal`)[0]!.n),
});

const pg = postgresServer();
const connect = (url: string) => postgres(url, { max: 2, onnotice: () => {} });

describe.skipIf(pg.missing !== '')(`on PostgreSQL and SQLite${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
  it('a fresh database migrated by each engine has the same tables, columns, keys and indexes', async () => {
    const file = join(tempDir(), 'payorch.db');
    const lite = sqliteSchema(file);
    const sql = connect(await pg.database());
    try {
      const { applied } = await migratePostgres(sql);
      expect(applied).toEqual(migrations.map((m) => m.version).sort((a, b) => a - b));
      const pgSchema = await postgresSchema(sql);
      expect(Object.keys(pgSchema)).toEqual(Object.keys(lite));
      for (const t of Object.keys(lite)) expect(pgSchema[t], `table ${t}`).toEqual(lite[t]);
      expect(await postgresRows(sql)).toEqual(sqliteRows(file));
    } finally {
      await sql.end();
    }
  });

  it('migrating again is a no-op, on both engines', async () => {
    const file = join(tempDir(), 'payorch.db');
    const before = sqliteSchema(file);
    const store = openSqliteDatabase(file);
    const liteVersions = store.db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all();
    store.close();
    expect(sqliteSchema(file)).toEqual(before);
    const again = openSqliteDatabase(file);
    expect(again.db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all()).toEqual(
      liteVersions,
    );
    again.close();

    const sql = connect(await pg.database());
    try {
      await migratePostgres(sql);
      const schema = await postgresSchema(sql);
      const versions = await sql`SELECT version::int, applied_at FROM schema_migrations ORDER BY version`;
      expect(await migratePostgres(sql)).toEqual({ applied: [] });
      expect(await postgresSchema(sql)).toEqual(schema);
      expect(await sql`SELECT version::int, applied_at FROM schema_migrations ORDER BY version`).toEqual(versions);
    } finally {
      await sql.end();
    }
  });

  it('two processes migrating one database at once apply each version once', async () => {
    const url = await pg.database();
    const a = connect(url);
    const b = connect(url);
    try {
      const [ra, rb] = await Promise.all([migratePostgres(a), migratePostgres(b)]);
      const all = migrations.map((m) => m.version).sort((x, y) => x - y);
      expect([...ra.applied, ...rb.applied].sort((x, y) => x - y)).toEqual(all);
      const rows = await a`SELECT version::int AS v FROM schema_migrations ORDER BY version`;
      expect(rows.map((r) => r.v)).toEqual(all);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('a database written by a newer payorch is refused, and nothing is applied to it', async () => {
    const sql = connect(await pg.database());
    try {
      await migratePostgres(sql);
      await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999999, 'from the future', '')`;
      await sql`DELETE FROM schema_migrations WHERE version = 903`;
      await expect(migratePostgres(sql)).rejects.toThrow(/newer payorch \(schema 999999/);
      expect((await sql`SELECT count(*)::int AS n FROM schema_migrations WHERE version = 903`)[0]!.n).toBe(0);
    } finally {
      await sql.end();
    }
  });

  it('event numbers are never given twice, as on SQLite since version 504', async () => {
    const sql = connect(await pg.database());
    try {
      await migratePostgres(sql);
      const insert = (id: string) =>
        sql`INSERT INTO events (id, account_id, type, object_id, created_ms, body)
            VALUES (${id}, 'a', 'x.created', 'o', 0, '{}') RETURNING seq::int AS seq`;
      const [first] = await insert('e1');
      const [second] = await insert('e2');
      expect(second!.seq).toBeGreaterThan(first!.seq);
      await sql`DELETE FROM events WHERE id = 'e2'`;
      const [third] = await insert('e3');
      expect(third!.seq).toBeGreaterThan(second!.seq);
    } finally {
      await sql.end();
    }
  });
});
