// Unnamed snapshots on PostgreSQL (`server.snapshot()`): an image, the rows of every domain table in a Buffer the
// caller keeps — a header, then each table's rows as JSON (small tables) or as binary COPY writes them — and its
// restore, through temporary tables its rows are loaded into, then as a named snapshot's (snapshot-restore.ts).
import { createHash, webcrypto } from 'node:crypto';
import { SnapshotError, unrestorable } from '../../store/snapshot-rules.js';
import type { Inspected } from '../engine.js';
import type { Handle, PostgresDatabase } from './db.js';
import { checkSaved, converge, emptyAll, migrated, restoring } from './snapshot-restore.js';
import {
  domainTables,
  ident,
  identity,
  ownTransaction,
  type Positions,
  positions,
  SNAPSHOT_SCHEMA,
  sqlState,
  type Table,
} from './snapshot-tables.js';

const IMAGE_MAGIC = 'payorch postgres image 2\n';
/**
 * The temporary tables an image is restored through: this and the table's name (not the table's name alone, which
 * would hide the domain table from the transaction's unqualified statements).
 */
const IMAGE_TABLE_PREFIX = 'payorch_image_';

/**
 * What the image's header says (then each table's rows, in this order, `bytes` long each, as `format` says; `sha256`:
 * the hash of all of them).
 */
interface ImageHeader {
  schema: number;
  key_check: string | null;
  sequences: Positions;
  tables: { name: string; columns: string[]; format: ImageFormat; bytes: number }[];
  sha256: string;
}

/** How a table's rows are in an image: a JSON array of rows, or what `COPY … TO STDOUT (FORMAT binary)` writes. */
type ImageFormat = 'json' | 'binary';

/**
 * What is committed now, as bytes a restoreImage puts back (an unnamed snapshot): a header (schema version, sealing
 * key check, sequences, tables and their columns, the body's SHA-256), then each table's rows — a table of less than
 * SMALL_TABLE bytes as a JSON array (`json`), a bigger one as `COPY … TO STDOUT (FORMAT binary)` writes it (`binary`):
 * COPY is PostgreSQL's fastest way out and in, but each COPY into a table costs a restore a wait (copyIn), which a
 * table of a few rows is not worth. It holds the database only: secrets stay sealed as they are in it.
 */
export async function image(store: PostgresDatabase): Promise<Buffer> {
  ownTransaction(store, 'A snapshot image');
  return store.read(async () => {
    const q = store.current();
    const tables = await domainTables(q);
    const { schema, keyCheck } = await identity(q);
    const sequences = await positions(q, tables);
    const sizes = new Map(
      (
        await q.unsafe<{ name: string; size: number }[]>(
          `SELECT relname AS name, pg_table_size(oid) AS size FROM pg_class
           WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'`,
        )
      ).map((r) => [r.name, r.size]),
    );
    const parts: Buffer[] = [];
    const digest = createHash('sha256');
    const header: ImageHeader = { schema, key_check: keyCheck, sequences, tables: [], sha256: '' };
    // The small tables' JSON asked for at once (the driver sends the statements together), then the COPYs in turn.
    const small = tables.map((t) =>
      (sizes.get(t.name) ?? 0) < SMALL_TABLE
        ? q
            .unsafe<{ rows: string }[]>(
              // `x.*`: the whole row, even in a table that has a column named x (`json_agg(x)` would aggregate it).
              `SELECT COALESCE(json_agg(x.*), '[]')::text AS rows FROM (SELECT ${t.columns.map(ident).join(', ')} FROM ${ident(t.name)}) x`,
            )
            .then(([row]) => Buffer.from(row?.rows ?? '[]'))
        : undefined,
    );
    await Promise.all(small.filter((p) => p !== undefined));
    for (const [i, t] of tables.entries()) {
      const json = small[i];
      const rows = json
        ? [await json]
        : await copyOut(q, `COPY ${ident(t.name)} (${t.columns.map(ident).join(', ')}) TO STDOUT (FORMAT binary)`);
      let bytes = 0;
      for (const chunk of rows) {
        digest.update(chunk);
        bytes += chunk.length;
      }
      parts.push(...rows);
      header.tables.push({ name: t.name, columns: t.columns, format: json ? 'json' : 'binary', bytes });
    }
    header.sha256 = digest.digest('hex');
    return Buffer.concat([Buffer.from(IMAGE_MAGIC + JSON.stringify(header) + '\n'), ...parts]);
  });
}

/** Below this size (`pg_table_size`), a table's rows are in an image as JSON; from it, as COPY's binary format. */
const SMALL_TABLE = 256 * 1024;

/**
 * The rows `statement` (`COPY … TO STDOUT`) writes, as the driver's chunks.
 *
 * postgres.js 3.4 pauses the connection's socket when the stream's buffer is full, and resumes it when the stream is
 * read; when the end of the COPY arrives in the same network read as rows that filled the buffer (a table of a few
 * dozen KB, read before the stream is), the stream ends with the socket paused, and every later statement on the
 * connection waits for ever. So once the stream has ended, the socket is resumed (the stream's own read hook: what a
 * read of it would have done).
 */
async function copyOut(q: Handle, statement: string): Promise<Buffer[]> {
  const stream = await q.unsafe(statement).readable();
  const chunks: Buffer[] = [];
  try {
    // Read as it comes ('data': a row a chunk, ~100k at 10k objects: an async iterator's cost per chunk would show).
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', resolve);
      stream.once('error', reject);
      stream.once('close', () => reject(new Error('The COPY of an image ended before its rows did.')));
    });
  } finally {
    // Also when PostgreSQL ended the COPY with an error (the transaction's ROLLBACK must be answered); not when the
    // connection is gone (the driver has no socket to resume then).
    try {
      (stream as unknown as { _read(size: number): void })._read(0);
    } catch {
      // the connection is gone
    }
  }
  return chunks;
}

/**
 * `data` written through `statement` (`COPY … FROM STDIN`), in the caller's transaction.
 *
 * postgres.js 3.4's COPY stream tells its end (`finish`) when PostgreSQL says the COPY is complete, and nothing at all
 * when PostgreSQL refuses the rows after the last was sent, or the connection is lost then: waiting for `finish` could
 * wait for ever. So once every row is sent and the stream ended (the driver has sent the end of the COPY), a
 * statement follows on the same connection: it answers once the COPY is complete, or fails (the transaction aborted,
 * or the connection lost) — it cannot wait for ever.
 */
async function copyIn(q: Handle, statement: string, data: Buffer): Promise<void> {
  const stream = await q.unsafe(statement).writable();
  let failed: unknown;
  const refused = new Promise<never>((_, reject) =>
    stream.once('error', (err) => {
      failed ??= err;
      reject(err);
    }),
  );
  refused.catch(() => {});
  for (let at = 0; at < data.length; at += COPY_CHUNK) {
    const chunk = data.subarray(at, at + COPY_CHUNK);
    await Promise.race([
      refused,
      new Promise<void>((resolve, reject) => stream.write(chunk, (err) => (err ? reject(err) : resolve()))),
    ]);
  }
  // Nothing is left to write: the stream ends now, the driver sending the end of the COPY before the next statement.
  stream.end();
  try {
    await q.unsafe(AFTER_COPY);
  } catch (err) {
    // Refused after its last row was sent: the driver dropped PostgreSQL's reason; the transaction is aborted.
    throw failed ?? (sqlState(err) === '25P02' ? new CopyRefused() : err);
  }
  if (failed !== undefined) throw failed;
}

/** PostgreSQL refused a COPY's rows once they were all sent (its reason is not known: copyIn). */
class CopyRefused extends Error {
  constructor() {
    super('PostgreSQL refused them');
  }
}

/** Whether `err` is PostgreSQL refusing a COPY's rows (rather than the connection or the server failing). */
const refusedRows = (err: unknown) =>
  err instanceof CopyRefused || String(sqlState(err)).startsWith('22') || sqlState(err) === '23502';

/** How much of an image a message of a COPY carries. */
const COPY_CHUNK = 1 << 20;

/**
 * The statement that follows a COPY's rows (copyIn): `SELECT 1` and 64 KB of comment. The driver leaves Nagle's
 * algorithm on (no TCP_NODELAY), and PostgreSQL answers nothing to rows: the end of the COPY, a few bytes, would wait
 * in the kernel for PostgreSQL's delayed acknowledgment of the last rows (40 ms on Linux), at each table. Bytes of a
 * full segment or more behind it are sent at once, and it with them (bench/README.md "Images by COPY").
 */
const AFTER_COPY = `SELECT 1 /* ${'-'.repeat(64 * 1024)} */`;

/** An image's header, or what is wrong with it (not an image of this engine, cut short). */
function readImage(buf: Buffer): { header: ImageHeader; start: number } | string {
  if (buf.length < IMAGE_MAGIC.length || buf.toString('latin1', 0, IMAGE_MAGIC.length) !== IMAGE_MAGIC)
    return 'it is not a payorch PostgreSQL image';
  const end = buf.indexOf(10, IMAGE_MAGIC.length);
  let header: ImageHeader;
  try {
    if (end < 0) throw new Error('no header');
    header = JSON.parse(buf.toString('utf8', IMAGE_MAGIC.length, end)) as ImageHeader;
    if (
      !Array.isArray(header.tables) ||
      typeof header.schema !== 'number' ||
      typeof header.sha256 !== 'string' ||
      !header.tables.every((t) => t.format === 'json' || t.format === 'binary')
    )
      throw new Error('no tables');
  } catch {
    return 'it is damaged (its header cannot be read)';
  }
  const want = header.tables.reduce((n, t) => n + t.bytes, 0);
  const have = buf.length - end - 1;
  if (have !== want) return `it is cut short (${have} of ${want} bytes)`;
  return { header, start: end + 1 };
}

/** An image's schema version and sealing-key check; throws when it is not an image (see readImage). */
export function inspectImage(buf: Buffer): Inspected {
  const read = readImage(buf);
  if (typeof read === 'string') throw new SnapshotError('invalid_snapshot', read);
  return { schema: read.header.schema, keyCheck: read.header.key_check ?? undefined };
}

/**
 * Puts the database back to `image` (made by `image`), in one transaction, as restoreSnapshot does. Refused
 * (SnapshotError 'invalid_snapshot', nothing changed) when it is not an image, is cut short or damaged, was taken of
 * another sealing key than `keyCheck`'s, or of another schema version.
 */
export async function restoreImage(store: PostgresDatabase, buf: Buffer, keyCheck: string): Promise<void> {
  ownTransaction(store, 'A snapshot restore');
  const read = readImage(buf);
  const label = 'in memory';
  if (typeof read === 'string') checkSaved(read, keyCheck, label);
  const { header, start } = read as { header: ImageHeader; start: number };
  checkSaved({ schema: header.schema, keyCheck: header.key_check ?? undefined }, keyCheck, label);
  // Its rows must be what it was made with, byte for byte: hashed off the main thread while the restore takes its
  // locks and loads them; a damaged image is refused before the domain tables are touched (and not met as a COPY's
  // failure).
  const body = buf.subarray(start);
  const hashed = webcrypto.subtle
    .digest('SHA-256', new Uint8Array(body.buffer, body.byteOffset, body.length))
    .then((d) => Buffer.from(d).toString('hex') === header.sha256);
  hashed.catch(() => {});
  const sound = async () => {
    if (!(await hashed)) checkSaved('it is damaged (its rows are not those it was made with)', keyCheck, label);
  };
  await restoring(store, async (q, tables) => {
    const copy = async (target: (t: Table) => string, to: Table[]) => {
      let at = start;
      const inserts: Promise<unknown>[] = [];
      const copies: { name: string; run: () => Promise<void> }[] = [];
      // A failure: the image's hash is checked first (a damaged image is said so); rows PostgreSQL refuses in an
      // image that is not damaged are not rows of this schema's table: not an image this build made.
      const refused = async (name: string, err: unknown): Promise<never> => {
        await sound();
        if (!refusedRows(err)) throw err;
        checkSaved(`PostgreSQL refused its rows of table ${name} (${(err as Error).message})`, keyCheck, label);
        throw err;
      };
      for (const s of header.tables) {
        const rows = buf.subarray(at, at + s.bytes);
        at += s.bytes;
        const t = to.find((x) => x.name === s.name);
        if (!t || JSON.stringify(s.columns) !== JSON.stringify(t.columns))
          throw unrestorable(label, `its table ${s.name} is not one of schema ${header.schema}'s`);
        const cols = s.columns.map(ident).join(', ');
        if (s.format === 'binary')
          copies.push({
            name: s.name,
            run: () => copyIn(q, `COPY ${target(t)} (${cols}) FROM STDIN (FORMAT binary)`, rows),
          });
        else if (s.bytes > 2)
          // Sent together: the driver writes them at once, PostgreSQL answers each in turn.
          inserts.push(
            q
              .unsafe(
                `INSERT INTO ${target(t)} (${cols}) OVERRIDING SYSTEM VALUE SELECT ${cols} FROM json_populate_recordset(null::${target(t)}, $1::text::json)`,
                [rows.toString('utf8')],
              )
              .catch((err: unknown) => refused(s.name, err)),
          );
      }
      await Promise.all(inserts);
      for (const c of copies) await c.run().catch((err: unknown) => refused(c.name, err));
    };
    if (header.schema === SNAPSHOT_SCHEMA) {
      // The image's rows go to temporary tables (no index, no WAL; dropped at the transaction's end), which the
      // domain tables are then made equal to as to a named snapshot: only the rows that differ are written.
      const staged = (t: Table) => `pg_temp.${ident(IMAGE_TABLE_PREFIX + t.name)}`;
      // A table the image has no row of is emptied (converge), with no temporary table to compare it with.
      const inImage = new Set(header.tables.filter((t) => !(t.format === 'json' && t.bytes <= 2)).map((t) => t.name));
      // Sent together: the driver writes them at once, PostgreSQL answers each in turn.
      await Promise.all(
        tables
          .filter((x) => inImage.has(x.name))
          .map((t) => q.unsafe(`CREATE TEMPORARY TABLE ${staged(t)} (LIKE ${ident(t.name)}) ON COMMIT DROP`)),
      );
      await copy(staged, tables);
      await sound();
      await converge(q, staged, tables, inImage);
    } else {
      await emptyAll(q, tables);
      await migrated(q, header.schema, tables, async (into, to) => {
        await copy((t) => `${ident(into)}.${ident(t.name)}`, to);
        await sound();
      });
    }
    return header.sequences;
  });
}
