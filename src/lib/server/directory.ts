// The database of a data directory as the commands that work on the directory directly open it (`server keys …`):
// the PostgreSQL database a server on the directory was started on (database.json), or one given (`--database`,
// PAYORCH_DATABASE_URL), else the directory's own SQLite file. PostgreSQL's driver is loaded only on that path.
import type { Accounts } from './domain/accounts.js';
import { sqliteEngine } from './adapters/sqlite/engine.js';
import { describeUrl } from './database-url.js';
import {
  KeyError,
  openDataDir,
  openSharedDatabase,
  readCredentials,
  recordedDatabase,
  sealerOfKey,
} from './datadir.js';

export interface DirectoryDatabase {
  accounts: Accounts;
  /** The PostgreSQL database (without its password), or undefined: the directory's SQLite file. */
  database?: string;
  /** The default account (that of the directory's default key, credentials.json). */
  defaultAccount(): Promise<string>;
  /**
   * Refuses, before anything changes, to revoke key `idOrKey` when that is the default key and it could not then be
   * re-issued: on PostgreSQL the default key is kept sealed in the database, so that takes the sealing key.
   */
  mayRevoke(idOrKey: string): Promise<void>;
  /** The default key revoked: the default account gets a new one at once (credentials.json, and the database). */
  keepDefaultKey(): Promise<void>;
  close(): Promise<void>;
}

export interface DirectoryOptions {
  /** A database given for this command (`--database`, PAYORCH_DATABASE_URL): used when the directory names none. */
  database?: string;
  /** The sealing key (64 hex characters), read only when needed (re-issuing a revoked default key on PostgreSQL). */
  sealingKey?: () => string | undefined;
}

/** Opens the database of data directory `dir` (made, on SQLite, on first use, as a server start would). */
export async function openDirectoryDatabase(dir: string, options: DirectoryOptions = {}): Promise<DirectoryDatabase> {
  const url = recordedDatabase(dir) ?? options.database;
  if (url === undefined) {
    const { store, credentials } = await openDataDir(sqliteEngine, dir);
    return {
      accounts: sqliteEngine.accounts(store),
      defaultAccount: () => Promise.resolve(credentials.account_id),
      mayRevoke: () => Promise.resolve(),
      keepDefaultKey: async () => (await openDataDir(sqliteEngine, dir)).store.close(),
      close: () => Promise.resolve(store.close()),
    };
  }
  const { openDatabase, postgresEngine } = await import('./adapters/postgres/engine.js');
  const where = describeUrl(url);
  const raw = await openDatabase(url, { max: 2 });
  const engine = postgresEngine(raw);
  const accounts = engine.accounts(raw);
  const records = engine.records(raw);
  const key = () => options.sealingKey?.();
  /** The default key, as the directory's server handed it out (credentials.json). */
  const defaultKey = () => readCredentials(dir)?.api_key;
  return {
    accounts,
    database: where,
    defaultAccount: async () => {
      const id = await records.get('default_account');
      if (id === undefined)
        throw new Error(
          `The database ${where} has no default account yet: start a server on it first (\`payorch server start\`).`,
        );
      return id;
    },
    mayRevoke: async (idOrKey) => {
      const current = defaultKey();
      if (current === undefined || key() !== undefined) return;
      const isDefault = idOrKey.startsWith('sk_') ? idOrKey === current : idOrKey === (await accounts.keyIdOf(current));
      if (isDefault)
        throw new KeyError(
          `That is the default key of ${dir} (credentials.json). On ${where} a new default key is issued at once, sealed with the sandbox's sealing key: give it (--sealing-key-file FILE, PAYORCH_SEALING_KEY_FILE or PAYORCH_SEALING_KEY). Nothing was revoked.`,
        );
    },
    keepDefaultKey: async () => {
      const current = defaultKey();
      if (current === undefined || (await accounts.isActive(current))) return;
      const hex = key();
      if (hex === undefined) return; // mayRevoke refused this case; another process revoked it: its next start re-issues
      await openSharedDatabase(engine, raw, sealerOfKey(hex), { credentialsDir: dir });
    },
    close: () => raw.end(),
  };
}
