// The CLI of a shared sandbox on PostgreSQL, as a user runs it: `server sealing-key` makes the key (stdout, or a new
// private file), `server start` checks --database and the sealing key (flags and environment) before anything starts
// and never prints the key, and `server migrate` applies the migrations to a throwaway PostgreSQL, then finds it up to
// date; a database that cannot be reached is named (host, port, database) without its password.
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../dist/lib/server/store/migrations/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { postgresServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const pg = postgresServer();
const KEY = /^[0-9a-f]{64}$/;
const UNREACHABLE = 'postgres://u:s3cret@127.0.0.1:1/db';

/** A private key file (0600) holding `text`, in a fresh directory. */
function keyFile(text: string, mode = 0o600): string {
  const path = join(tempDir(), 'sealing.key');
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

const output = (r: CliResult) => r.stdout + r.stderr;

describe('server sealing-key', () => {
  it('prints a new 64-hex key on stdout, and only that; each run a new one', async () => {
    const [a, b, json] = await Promise.all([
      runCli(['server', 'sealing-key']),
      runCli(['server', 'sealing-key']),
      runCli(['server', 'sealing-key', '--json']),
    ]);
    for (const r of [a, b, json]) expect(r.code, r.stderr).toBe(0);
    expect(a.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    expect(a.stderr).toBe('');
    expect(b.stdout).not.toBe(a.stdout);
    expect(json.json().sealing_key).toMatch(KEY);
  });

  it('--out writes it to a new file of mode 0600 (not on stdout) and never replaces a file', async () => {
    const path = join(tempDir(), 'sealing.key');
    const r = await runCli(['server', 'sealing-key', '--out', path]);
    expect(r.code, r.stderr).toBe(0);
    const key = readFileSync(path, 'utf8');
    expect(key).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(output(r)).not.toContain(key.trim());
    expect(r.stdout).toContain(path);

    const again = await runCli(['server', 'sealing-key', '--out', path, '--json']);
    expect(again.code).toBe(2);
    expect(again.json().error.message).toMatch(/exists: a sealing key file is never replaced/);
    expect(readFileSync(path, 'utf8')).toBe(key);

    const blank = await runCli(['server', 'sealing-key', '--out', ' ']);
    expect(blank.code).toBe(2);
    expect(blank.stderr).toMatch(/--out is blank/);
  });

  it('its key is one `server start --sealing-key-file` takes', async () => {
    const path = join(tempDir(), 'k');
    expect((await runCli(['server', 'sealing-key', '--out', path])).code).toBe(0);
    // The key passes; the start then fails at the database (nothing listens there), not at the key.
    const r = await runCli(['server', 'start', '--database', UNREACHABLE, '--sealing-key-file', path, '--port', '0']);
    expect(r.stderr).not.toMatch(/sealing key/i);
    expect(r.code).not.toBe(0);
  });
});

describe('server start --database: what is refused before anything starts', () => {
  /** `server start ARGS` in a fresh PAYORCH_HOME: its result, and whether the default data directory was made. */
  async function start(args: string[], env: Record<string, string> = {}) {
    const home = tempDir();
    const r = await runCli(['server', 'start', '--port', '0', ...args], { home, env });
    return { ...r, started: existsSync(join(home, 'server')) };
  }

  it('--memory with a database (flag or PAYORCH_DATABASE_URL) is a usage error', async () => {
    const key = keyFile('a'.repeat(64));
    const [flag, env] = await Promise.all([
      start(['--memory', '--database', UNREACHABLE, '--sealing-key-file', key]),
      start(['--memory'], { PAYORCH_DATABASE_URL: UNREACHABLE, PAYORCH_SEALING_KEY_FILE: key }),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--memory .* and --database .*: use one of them/);
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/PAYORCH_DATABASE_URL .*unset PAYORCH_DATABASE_URL/);
  });

  it('a database without a sealing key, and a sealing key without a database, are usage errors', async () => {
    const key = keyFile('b'.repeat(64));
    const [noKey, keyOnly, keyEnvOnly] = await Promise.all([
      start(['--database', UNREACHABLE]),
      start(['--sealing-key-file', key]),
      start([], { PAYORCH_SEALING_KEY: 'c'.repeat(64) }),
    ]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(
      /needs the key that seals secrets at rest, the same for every process on postgres:\/\/u@127\.0\.0\.1:1\/db/,
    );
    expect(noKey.stderr).toMatch(/payorch server sealing-key/);
    expect(noKey.stderr).not.toContain('s3cret');
    expect(keyOnly.code).toBe(2);
    expect(keyOnly.stderr).toMatch(/--sealing-key-file gives the sealing key of a server on PostgreSQL/);
    expect(keyEnvOnly.code).toBe(2);
    expect(keyEnvOnly.stderr).toMatch(/PAYORCH_SEALING_KEY gives the sealing key/);
    expect(output(keyEnvOnly)).not.toContain('c'.repeat(16));
    for (const r of [noKey, keyOnly, keyEnvOnly]) expect(r.started).toBe(false);
  });

  it('a URL that is not PostgreSQL’s, or blank, is refused without echoing it (it may hold a password)', async () => {
    const [mysql, notUrl, blankFlag, blankEnv, noDatabase] = await Promise.all([
      start(['--database', 'mysql://root:hunter22@127.0.0.1/db']),
      start(['--database', 'hunter22']),
      start(['--database', ' ']),
      start([], { PAYORCH_DATABASE_URL: '' }),
      start([], { PAYORCH_DATABASE_URL: 'postgres://u:hunter22@127.0.0.1:5432' }),
    ]);
    expect(mysql.code).toBe(2);
    expect(mysql.stderr).toMatch(/--database is a mysql: URL: give a PostgreSQL URL/);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/--database is not a URL/);
    for (const r of [mysql, notUrl]) expect(output(r)).not.toContain('hunter22');
    expect(blankFlag.code).toBe(2);
    expect(blankFlag.stderr).toMatch(/--database is blank/);
    // An empty variable in a script must not quietly mean "SQLite".
    expect(blankEnv.code).toBe(2);
    expect(blankEnv.stderr).toMatch(/PAYORCH_DATABASE_URL is set but blank/);
    expect(noDatabase.code).toBe(3); // from the environment: configuration
    expect(noDatabase.stderr).toMatch(/PAYORCH_DATABASE_URL names no database/);
    for (const r of [mysql, notUrl, noDatabase]) expect(output(r)).not.toContain('hunter22');
    for (const r of [mysql, notUrl, blankFlag, blankEnv, noDatabase]) expect(r.started).toBe(false);
  });

  it('a key file that is missing, not a key, or readable by others is refused, and what it holds is never printed', async () => {
    // Secret-looking contents that are not keys: none of them may appear in any output.
    const nearlyKey = '0123456789abcdef'.repeat(4).slice(0, 63); // 63 hex characters
    const notHex = `${'f00d'.repeat(15)}zzzz`; // 64 characters, 4 of them not hexadecimal
    const good = 'd'.repeat(64);
    const dir = tempDir();
    const cases = await Promise.all([
      start(['--database', UNREACHABLE, '--sealing-key-file', join(dir, 'missing.key')]),
      start(['--database', UNREACHABLE, '--sealing-key-file', keyFile(nearlyKey)]),
      start(['--database', UNREACHABLE, '--sealing-key-file', keyFile(notHex)]),
      start(['--database', UNREACHABLE, '--sealing-key-file', keyFile(good, 0o644)]),
      start(['--database', UNREACHABLE, '--sealing-key-file', keyFile(good, 0o640)]),
      start(['--database', UNREACHABLE, '--sealing-key-file', keyFile(''.padEnd(2000, 'a'))]),
      start(['--database', UNREACHABLE, '--sealing-key-file', dir]),
      start(['--database', UNREACHABLE], { PAYORCH_SEALING_KEY: nearlyKey }),
      start(['--database', UNREACHABLE], { PAYORCH_SEALING_KEY_FILE: keyFile(notHex) }),
    ]);
    const [missing, short, nonHex, worldReadable, groupReadable, large, directory, envShort, envNonHex] = cases;
    expect(missing!.stderr).toMatch(
      /The sealing key file .*missing\.key \(--sealing-key-file\) does not exist\. Make one with `payorch server sealing-key --out FILE`/,
    );
    expect(short!.stderr).toMatch(
      /is not a sealing key: a key is 64 hexadecimal characters \(32 bytes\), and it has 63 characters\./,
    );
    expect(nonHex!.stderr).toMatch(/it has 64 characters, not all of them hexadecimal/);
    expect(worldReadable!.stderr).toMatch(/can be read by others \(mode 0644\).*chmod 600/);
    expect(groupReadable!.stderr).toMatch(/can be read by others \(mode 0640\)/);
    expect(large!.stderr).toMatch(/holds 2000 bytes/);
    expect(directory!.stderr).toMatch(/is not a file/);
    expect(envShort!.stderr).toMatch(/PAYORCH_SEALING_KEY is not a sealing key/);
    expect(envNonHex!.stderr).toMatch(/The sealing key file .* is not a sealing key/);
    for (const r of [missing, short, nonHex, worldReadable, groupReadable, large, directory])
      expect(r!.code, r!.stderr).toBe(2); // from a flag: usage
    for (const r of [envShort, envNonHex]) expect(r!.code, r!.stderr).toBe(3); // from the environment: configuration
    for (const r of cases) {
      expect(r.started).toBe(false);
      for (const secret of [nearlyKey.slice(0, 12), notHex.slice(0, 12), good.slice(0, 12), 's3cret'])
        expect(output(r)).not.toContain(secret);
    }
  });

  it('PAYORCH_SEALING_KEY_FILE and PAYORCH_SEALING_KEY together are refused; --sealing-key-file wins over both', async () => {
    const [both, flagWins] = await Promise.all([
      start(['--database', UNREACHABLE], {
        PAYORCH_SEALING_KEY_FILE: keyFile('e'.repeat(64)),
        PAYORCH_SEALING_KEY: 'e'.repeat(64),
      }),
      start(['--database', UNREACHABLE, '--sealing-key-file', keyFile('e'.repeat(64))], {
        PAYORCH_SEALING_KEY_FILE: '/nonexistent/key',
        PAYORCH_SEALING_KEY: 'not a key',
      }),
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/both set: give the key one way/);
    // the flag's key is taken (neither variable is read): the start gets as far as the database
    expect(flagWins.stderr).not.toMatch(/sealing key/i);
  });

  it("a seeded server needs no key (its seed's is used), and is refused one", async () => {
    const [seeded, seededWithKey, seededWithEnvKey] = await Promise.all([
      start(['--database', UNREACHABLE, '--seed', '7']),
      start(['--database', UNREACHABLE, '--seed', '7', '--sealing-key-file', keyFile('f'.repeat(64))]),
      start(['--database', UNREACHABLE, '--seed', '7'], { PAYORCH_SEALING_KEY: 'f'.repeat(64) }),
    ]);
    // past the checks: the start fails at the database, where nothing listens
    expect(seeded.stderr).not.toMatch(/sealing key/i);
    expect(seeded.code).not.toBe(0);
    expect(seededWithKey.code).toBe(2);
    expect(seededWithKey.stderr).toMatch(/sealing key comes from its seed .*leave out --sealing-key-file\./);
    expect(seededWithEnvKey.code).toBe(2);
    expect(seededWithEnvKey.stderr).toMatch(/leave out PAYORCH_SEALING_KEY \(unset PAYORCH_SEALING_KEY\)/);
    for (const r of [seededWithKey, seededWithEnvKey]) expect(r.started).toBe(false);
  });

  it('--help shows the flags and an example on PostgreSQL', async () => {
    const r = await runCli(['server', 'start', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--database/);
    expect(r.stdout).toMatch(/--sealing-key-file/);
    expect(r.stdout).toMatch(/server start --database postgres:\/\//);
  });
});

describe('server migrate', () => {
  it('needs a database, and refuses a blank or foreign one', async () => {
    const [none, blank, foreign] = await Promise.all([
      runCli(['server', 'migrate', '--json']),
      runCli(['server', 'migrate'], { env: { PAYORCH_DATABASE_URL: ' ' } }),
      runCli(['server', 'migrate', '--database', 'sqlite:///tmp/x.db']),
    ]);
    expect(none.code).toBe(2);
    expect(none.json().error.message).toMatch(/--database URL, or set PAYORCH_DATABASE_URL/);
    expect(blank.code).toBe(2);
    expect(foreign.code).toBe(2);
  });

  it('a database that cannot be reached: exit 4, naming host, port and database, never the password', async () => {
    const [human, json] = await Promise.all([
      runCli(['server', 'migrate', '--database', UNREACHABLE]),
      runCli(['server', 'migrate', '--json'], { env: { PAYORCH_DATABASE_URL: UNREACHABLE } }),
    ]);
    expect(human.code).toBe(4);
    expect(human.stderr).toContain('postgres://u@127.0.0.1:1/db');
    expect(json.code).toBe(4);
    expect(json.json().error).toMatchObject({ code: 'connection_error' });
    expect(json.json().error.message).toContain('127.0.0.1:1/db');
    for (const r of [human, json]) expect(output(r)).not.toContain('s3cret');
  });

  describe.skipIf(pg.missing !== '')(`on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
    it('applies every migration once, then finds the database up to date (flag and environment alike)', async () => {
      const url = await pg.database();
      const all = migrations.map((m) => m.version).sort((a, b) => a - b);
      const first = await runCli(['server', 'migrate', '--database', url, '--json']);
      expect(first.code, first.stderr).toBe(0);
      expect(first.json()).toEqual({ applied: all, database: url });

      const again = await runCli(['server', 'migrate', '--json'], { env: { PAYORCH_DATABASE_URL: url } });
      expect(again.code, again.stderr).toBe(0);
      expect(again.json()).toEqual({ applied: [], database: url });

      const human = await runCli(['server', 'migrate', '--database', url]);
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toBe(`${url} is up to date: no migration to apply.\n`);
    });

    it('says how many versions it applied', async () => {
      const url = await pg.database();
      const r = await runCli(['server', 'migrate', '--database', url]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(
        `Applied ${migrations.length} migrations to ${url} (versions ${migrations
          .map((m) => m.version)
          .sort((a, b) => a - b)
          .join(', ')}).\n`,
      );
    });

    it('a database that does not exist is named, exit 4', async () => {
      const url = (await pg.database()).replace(/\/[^/]+$/, '/no_such_db');
      const r = await runCli(['server', 'migrate', '--database', url]);
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('/no_such_db');
    });
  });
});

describe('server start --public-url', () => {
  it('refuses what is not an http(s) origin: exit 2, and the value (which may hold credentials) not repeated', async () => {
    for (const url of ['https://user:pw-s3cret@lb.example.com', 'ftp://lb.example.com', 'https://lb.example.com/api']) {
      const r = await runCli(['server', 'start', '--memory', '--port', '0', '--public-url', url, '--json'], {
        env: { PAYORCH_HOME: tempDir() },
      });
      expect(r.code).toBe(2);
      expect(r.json().error.code).toBe('invalid_public_url');
      expect(r.stdout + r.stderr).not.toContain('pw-s3cret');
      expect(r.stdout + r.stderr).not.toContain(url);
    }
  });
});
