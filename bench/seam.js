#!/usr/bin/env node
// `node bench/seam.js [statements]`: what a store seam that an asynchronous engine can also fill costs a request on
// SQLite, before the domain is moved onto it. One "request" runs `statements` (default 11, create-session's count;
// 19 a journal entry's, 30 a confirm's) prepared statements on a WAL file — reads by primary key, inserts, updates —
// in its own savepoint of a batch transaction of 16 requests, as the group commit runs them. The same work is
// driven five ways:
//   sync       the domain calls the store and gets rows back (today's handlers);
//   async      every store call is awaited (the handler and the domain are async functions; the SQLite adapter
//              answers with values at once, so each await is one microtask);
//   generator  the domain yields each query and the adapter resumes it with the rows, synchronously on SQLite
//              (an asynchronous engine would resume it when its answer comes);
//   kysely     each statement built and compiled by Kysely's query builder (typed, SQLite and PostgreSQL
//              dialects), then run as the sync variant runs it (prepared once per SQL text);
//   kysely-db  Kysely end to end: its own SqliteDialect on better-sqlite3, awaited (Kysely's API is asynchronous).
// Variants alternate over ROUNDS rounds (in reverse order every other round) so that a busy phase of the machine hits
// them alike; each figure is the median main-thread CPU µs per request (process.cpuUsage), and its ratio to sync's.
// `SEAM_INSTRUCTIONS=1` counts machine instructions per request instead (valgrind's callgrind, main thread, the
// difference of a run of SEAM_LOW and one of SEAM_HIGH requests after the same warm-up): a figure that does not
// move with the machine's load. Slow (valgrind runs node ~50× slower).
// Kysely is not a dependency of payorch: `npm i --no-save kysely` first, or the two Kysely rows are left out.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const STATEMENTS = Number(process.argv[2] ?? 11);
const ROUNDS = Number(process.env.SEAM_ROUNDS ?? 7);
const REQUESTS = Number(process.env.SEAM_REQUESTS ?? 3000);
const BATCH = 16;

const tmp = mkdtempSync(join(tmpdir(), 'payorch-seam-'));
const db = new Database(join(tmp, 'seam.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
CREATE TABLE objects (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, status TEXT NOT NULL, amount INTEGER NOT NULL,
  doc TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE INDEX objects_account ON objects (account_id, seq);
CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, account_id TEXT NOT NULL, type TEXT NOT NULL,
  object_id TEXT NOT NULL, doc TEXT NOT NULL);`);
const statements = new Map();
const prepared = (sql) => {
  let s = statements.get(sql);
  if (!s) statements.set(sql, (s = db.prepare(sql)));
  return s;
};
const SQL = {
  get: 'SELECT id, status, amount, doc FROM objects WHERE id = ? AND account_id = ?',
  insert: 'INSERT INTO objects (id, account_id, status, amount, doc, seq) VALUES (?, ?, ?, ?, ?, ?)',
  update: 'UPDATE objects SET status = ?, doc = ? WHERE id = ? AND account_id = ?',
  event: 'INSERT INTO events (account_id, type, object_id, doc) VALUES (?, ?, ?, ?)',
};
for (const sql of Object.values(SQL)) prepared(sql);

let serial = 0;
const doc = JSON.stringify({ amount: 1999, currency: 'USD', metadata: { order: '1234' }, status: 'created' });
/** The statements of one request, in order: a third reads, the others insert, update and record events. */
function plan() {
  const id = `obj_${(serial++).toString(36).padStart(10, '0')}`;
  const out = [];
  for (let i = 0; i < STATEMENTS; i++) {
    const k = i % 3;
    if (i === 0) out.push(['insert', [id, 'acct_1', 'created', 1999, doc, serial]]);
    else if (k === 1) out.push(['get', [id, 'acct_1']]);
    else if (k === 2) out.push(['update', ['processing', doc, id, 'acct_1']]);
    else out.push(['event', ['acct_1', 'object.updated', id, doc]]);
  }
  return out;
}
const exec = (kind, args) => (kind === 'get' ? prepared(SQL[kind]).get(...args) : prepared(SQL[kind]).run(...args));

// The five ways to drive a request's statements.
function syncRequest(steps) {
  let last;
  for (const [kind, args] of steps) last = exec(kind, args);
  return last;
}
async function asyncRequest(steps) {
  let last;
  for (const [kind, args] of steps) last = await exec(kind, args);
  return last;
}
function* generatorRequest(steps) {
  let last;
  for (const [kind, args] of steps) last = yield [kind, args];
  return last;
}
function driveGenerator(gen) {
  let r = gen.next();
  while (!r.done) r = gen.next(exec(r.value[0], r.value[1]));
  return r.value;
}

let kysely;
let kyselyDb;
try {
  const { Kysely, SqliteDialect, DummyDriver, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } =
    await import('kysely');
  kysely = new Kysely({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  kyselyDb = new Kysely({ dialect: new SqliteDialect({ database: db }) });
} catch {
  process.stderr.write('seam: kysely is not installed (npm i --no-save kysely): its rows are left out\n');
}
function kyselyQuery(k, kind, args) {
  if (kind === 'get')
    return k
      .selectFrom('objects')
      .select(['id', 'status', 'amount', 'doc'])
      .where('id', '=', args[0])
      .where('account_id', '=', args[1]);
  if (kind === 'insert') {
    const [id, account_id, status, amount, d, seq] = args;
    return k.insertInto('objects').values({ id, account_id, status, amount, doc: d, seq });
  }
  if (kind === 'update')
    return k
      .updateTable('objects')
      .set({ status: args[0], doc: args[1] })
      .where('id', '=', args[2])
      .where('account_id', '=', args[3]);
  const [account_id, type, object_id, d] = args;
  return k.insertInto('events').values({ account_id, type, object_id, doc: d });
}
function kyselyRequest(steps) {
  let last;
  for (const [kind, args] of steps) {
    const { sql, parameters } = kyselyQuery(kysely, kind, args).compile();
    last = kind === 'get' ? prepared(sql).get(...parameters) : prepared(sql).run(...parameters);
  }
  return last;
}
async function kyselyDbRequest(steps) {
  let last;
  for (const [kind, args] of steps) {
    const q = kyselyQuery(kyselyDb, kind, args);
    last = kind === 'get' ? await q.executeTakeFirst() : await q.execute();
  }
  return last;
}

/** Runs REQUESTS requests the given way in batches of BATCH (one transaction, a savepoint each); CPU µs each. */
async function measure(way) {
  const batches = [];
  for (let i = 0; i < REQUESTS / BATCH; i++) batches.push(Array.from({ length: BATCH }, plan));
  const before = process.cpuUsage();
  await runBatches(way, batches);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (batches.length * BATCH);
}

/** `n` requests the given way (plans made first). */
async function runRequests(way, n) {
  const batches = [];
  for (let i = 0; i < n / BATCH; i++) batches.push(Array.from({ length: BATCH }, plan));
  await runBatches(way, batches);
}

async function runBatches(way, batches) {
  for (const batch of batches) {
    db.exec('BEGIN IMMEDIATE');
    for (const steps of batch) {
      db.exec('SAVEPOINT r');
      if (way === 'sync') syncRequest(steps);
      else if (way === 'async') await asyncRequest(steps);
      else if (way === 'generator') driveGenerator(generatorRequest(steps));
      else if (way === 'kysely') kyselyRequest(steps);
      else await kyselyDbRequest(steps);
      db.exec('RELEASE r');
    }
    db.exec('COMMIT');
  }
}

const ways = ['sync', 'async', 'generator', ...(kysely ? ['kysely', 'kysely-db'] : [])];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
if (process.env.SEAM_ONLY) {
  // A child under valgrind: one way, a warm-up of 1,000 requests, then SEAM_N requests.
  await runRequests(process.env.SEAM_ONLY, 1000);
  await runRequests(process.env.SEAM_ONLY, Number(process.env.SEAM_N));
  globalThis.gc?.();
} else if (process.env.SEAM_INSTRUCTIONS) {
  const low = Number(process.env.SEAM_LOW ?? 400);
  const high = Number(process.env.SEAM_HIGH ?? 1600);
  const out = join(tmp, 'cg');
  const count = (way, n) => {
    const r = spawnSync(
      'valgrind',
      [
        '--tool=callgrind',
        '--separate-threads=yes',
        `--callgrind-out-file=${out}.${way}.${n}`,
        process.execPath,
        '--single-threaded',
        '--expose-gc',
        fileURLToPath(import.meta.url),
        String(STATEMENTS),
      ],
      { env: { ...process.env, SEAM_ONLY: way, SEAM_N: String(n) }, encoding: 'utf8', maxBuffer: 64 << 20 },
    );
    const m = /(?:summary|totals): (\d+)/.exec(readFileSync(`${out}.${way}.${n}-01`, 'utf8'));
    if (r.status !== 0 || !m) throw new Error(`valgrind run failed (${r.status}): ${r.stderr.slice(-2000)}`);
    return Number(m[1]);
  };
  process.stdout.write(
    `${STATEMENTS} statements per request, instructions per request (${low} and ${high} requests)\n`,
  );
  let base;
  for (const w of ways) {
    const per = (count(w, high) - count(w, low)) / (high - low);
    base ??= per;
    process.stdout.write(
      `${w.padEnd(10)} ${(per / 1000).toFixed(1).padStart(7)} k instructions  ${(per / base).toFixed(2)}×\n`,
    );
  }
} else {
  const results = Object.fromEntries(ways.map((w) => [w, []]));
  for (const w of ways) await measure(w); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const w of round % 2 ? [...ways].reverse() : ways) results[w].push(await measure(w));
  }
  const base = median(results.sync);
  process.stdout.write(`${STATEMENTS} statements per request, ${REQUESTS} requests × ${ROUNDS} rounds\n`);
  for (const w of ways) {
    const m = median(results[w]);
    process.stdout.write(`${w.padEnd(10)} ${m.toFixed(1).padStart(7)} µs/request  ${(m / base).toFixed(2)}×\n`);
  }
}
db.close();
rmSync(tmp, { recursive: true, force: true });
