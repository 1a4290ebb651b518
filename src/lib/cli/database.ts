// A server on PostgreSQL, as `server start` and `server migrate` are told of it: the database URL (--database or
// PAYORCH_DATABASE_URL) and the key that seals secrets at rest (--sealing-key-file, PAYORCH_SEALING_KEY_FILE or
// PAYORCH_SEALING_KEY), each checked before anything starts. A key is never printed, whole or in part, and a URL only
// without its password.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { databaseUrlProblem, describeUrl } from '../server/database-url.js';
import { CliError, EXIT } from './errors.js';

export const databaseFlag = Flags.string({
  description:
    'PostgreSQL database for the server\'s state: postgres://user:password@host:port/db (env PAYORCH_DATABASE_URL); README "A shared sandbox"',
});

export const sealingKeyFileFlag = Flags.string({
  description:
    'With --database: the file holding the key that seals secrets at rest (64 hex characters, readable by its owner only; env PAYORCH_SEALING_KEY_FILE, or the key itself in PAYORCH_SEALING_KEY)',
});

/** The hexadecimal characters of a sealing key (32 bytes). */
const KEY_HEX = 64;

/** Where a value came from: a flag (a usage error when bad, exit 2) or the environment (configuration, exit 3). */
interface Source {
  name: string;
  value: string;
}

const exitOf = (source: Source) => (source.name.startsWith('--') ? EXIT.USAGE : EXIT.AUTH);

/** The flag's value, else the variable's, else undefined; a blank one is an error (it would mean "SQLite" quietly). */
function given(
  flag: string | undefined,
  flagName: string,
  env: NodeJS.ProcessEnv,
  varName: string,
): Source | undefined {
  const source =
    flag !== undefined
      ? { name: flagName, value: flag }
      : env[varName] !== undefined
        ? { name: varName, value: env[varName] }
        : undefined;
  if (source && source.value.trim() === '')
    throw new CliError(
      source.name.startsWith('--')
        ? `${source.name} is blank; give a value, or leave the flag out.`
        : `${source.name} is set but blank; give it a value, or unset it (\`unset ${source.name}\`).`,
      EXIT.USAGE,
    );
  return source;
}

/**
 * The PostgreSQL URL of --database, else PAYORCH_DATABASE_URL, checked (a postgres:// or postgresql:// URL that names
 * a database); undefined when neither is set. A bad one is refused without being echoed: it may hold a password.
 */
export function databaseUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const source = given(flag, '--database', env, 'PAYORCH_DATABASE_URL');
  if (!source) return undefined;
  const url = source.value.trim();
  const form = 'a PostgreSQL URL, postgres://user:password@host:port/database';
  const problem = databaseUrlProblem(url);
  if (problem?.kind === 'not_a_url') throw new CliError(`${source.name} is not a URL: give ${form}.`, exitOf(source));
  if (problem?.kind === 'not_postgres')
    throw new CliError(`${source.name} is a ${problem.protocol} URL: give ${form}.`, exitOf(source));
  if (problem?.kind === 'no_database')
    throw new CliError(`${source.name} names no database: give ${form}.`, exitOf(source));
  return url;
}

/**
 * The sealing key: from --sealing-key-file, else PAYORCH_SEALING_KEY_FILE or PAYORCH_SEALING_KEY (not both), as 64
 * lower-case hexadecimal characters; undefined when none is given.
 */
export function sealingKey(flagFile: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const file = given(flagFile, '--sealing-key-file', env, 'PAYORCH_SEALING_KEY_FILE');
  const inline = flagFile === undefined ? given(undefined, '', env, 'PAYORCH_SEALING_KEY') : undefined;
  if (file && inline)
    throw new CliError(
      'PAYORCH_SEALING_KEY_FILE and PAYORCH_SEALING_KEY are both set: give the key one way (unset the other).',
      EXIT.USAGE,
    );
  if (inline) return checkedKey(inline.value, inline, 'PAYORCH_SEALING_KEY');
  if (file) return checkedKey(readKeyFile(file), file, `The sealing key file ${file.value}`);
  return undefined;
}

/** Whether any of the sealing key's flag or variables is given. */
export const sealingKeyGiven = (flagFile: string | undefined, env: NodeJS.ProcessEnv): string | undefined =>
  flagFile !== undefined
    ? '--sealing-key-file'
    : env.PAYORCH_SEALING_KEY_FILE !== undefined
      ? 'PAYORCH_SEALING_KEY_FILE'
      : env.PAYORCH_SEALING_KEY !== undefined
        ? 'PAYORCH_SEALING_KEY'
        : undefined;

const MAKE_ONE = 'Make one with `payorch server sealing-key --out FILE`.';

/** `text` trimmed, as a key: 64 hexadecimal characters, or an error that says what is wrong but never what it holds. */
function checkedKey(text: string, source: Source, what: string): string {
  const key = text.trim();
  if (key.length === KEY_HEX && /^[0-9a-f]+$/i.test(key)) return key.toLowerCase();
  const why =
    key.length === 0
      ? 'it is empty'
      : /^[0-9a-f]*$/i.test(key)
        ? `it has ${key.length} characters`
        : `it has ${key.length} characters, not all of them hexadecimal`;
  throw new CliError(
    `${what} is not a sealing key: a key is ${KEY_HEX} hexadecimal characters (32 bytes), and ${why}. ${MAKE_ONE}`,
    exitOf(source),
  );
}

/**
 * The key file's text. As ssh does with a private key, a file of this user that others may read is refused (a key
 * they can read opens every secret the database holds); a file of another owner (a secret mounted for the process)
 * is read as it is.
 */
function readKeyFile(source: Source): string {
  const path = source.value;
  try {
    const st = statSync(path);
    if (!st.isFile())
      throw new CliError(`The sealing key file ${path} (${source.name}) is not a file.`, exitOf(source));
    const mode = st.mode & 0o777;
    if (process.getuid !== undefined && st.uid === process.getuid() && (mode & 0o077) !== 0)
      throw new CliError(
        `The sealing key file ${path} can be read by others (mode ${mode.toString(8).padStart(4, '0')}): it must be private to its owner, as ssh requires of a private key. Run \`chmod 600 ${path}\`.`,
        exitOf(source),
      );
    // A key and its line break fit in far less: a larger file is not a key (and is not read).
    if (st.size > 1024)
      throw new CliError(
        `The sealing key file ${path} (${source.name}) is not a sealing key: a key is ${KEY_HEX} hexadecimal characters, and the file holds ${st.size} bytes. ${MAKE_ONE}`,
        exitOf(source),
      );
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(
      code === 'ENOENT'
        ? `The sealing key file ${path} (${source.name}) does not exist. ${MAKE_ONE}`
        : `Cannot read the sealing key file ${path} (${source.name}): ${code ?? (err as Error).message}.`,
      exitOf(source),
    );
  }
}

/** A new sealing key: 32 random bytes, as 64 hexadecimal characters. */
export const newSealingKey = (): string => randomBytes(KEY_HEX / 2).toString('hex');

/**
 * Writes `key` and a line break to a new file `path`, readable by its owner only (0600); an existing file is never
 * replaced (what was sealed with the key it holds could no longer be opened).
 */
export function writeKeyFile(path: string, key: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(
      code === 'EEXIST'
        ? `${path} exists: a sealing key file is never replaced (what was sealed with its key could no longer be opened). Remove it first if it is no longer used, or choose another path.`
        : `Cannot write ${path}: ${code ?? (err as Error).message}.`,
      EXIT.USAGE,
    );
  }
  try {
    writeSync(fd, `${key}\n`);
  } catch (err) {
    closeSync(fd);
    rmSync(path, { force: true }); // a partial key must not be taken for one
    throw err;
  }
  closeSync(fd);
}

/**
 * Where `server start` keeps its state, from its flags and the environment: on PostgreSQL (the URL and the sealing key,
 * both needed) or undefined for the data directory's SQLite. Checked before anything starts: --memory beside a
 * database, a sealing key without one, a database without its key (a seeded server's key is its seed's: none is given).
 */
export function startOnDatabase(
  flags: { database?: string; 'sealing-key-file'?: string; memory?: boolean; seed?: number },
  env: NodeJS.ProcessEnv,
): { url: string; sealingKey?: string } | undefined {
  const asked =
    flags.database !== undefined
      ? '--database'
      : env.PAYORCH_DATABASE_URL !== undefined
        ? 'PAYORCH_DATABASE_URL'
        : undefined;
  if (asked && flags.memory)
    throw new CliError(
      `--memory keeps the server's state in its process and ${asked} in PostgreSQL: use one of them${asked === '--database' ? '' : ' (unset PAYORCH_DATABASE_URL for a server in memory)'}.`,
      EXIT.USAGE,
    );
  const url = databaseUrl(flags.database, env);
  const keySource = sealingKeyGiven(flags['sealing-key-file'], env);
  if (url === undefined) {
    if (keySource)
      throw new CliError(
        `${keySource} gives the sealing key of a server on PostgreSQL (--database or PAYORCH_DATABASE_URL); a data directory keeps its own.`,
        EXIT.USAGE,
      );
    return undefined;
  }
  if (flags.seed !== undefined) {
    if (keySource)
      throw new CliError(
        `A seeded server's sealing key comes from its seed (the same seed gives the same bytes): leave out ${keySource}${keySource.startsWith('--') ? '' : ` (unset ${keySource})`}.`,
        EXIT.USAGE,
      );
    return { url };
  }
  const key = sealingKey(flags['sealing-key-file'], env);
  if (key === undefined)
    throw new CliError(
      `A server on PostgreSQL needs the key that seals secrets at rest, the same for every process on ${describeUrl(url)}: --sealing-key-file FILE, PAYORCH_SEALING_KEY_FILE or PAYORCH_SEALING_KEY. ${MAKE_ONE}`,
      EXIT.USAGE,
    );
  return { url, sealingKey: key };
}
