// The database of a data directory for the `server keys …` commands: the one its server was started on (database.json),
// or `--database` / PAYORCH_DATABASE_URL, else the directory's SQLite file (server/directory.ts), with the database's
// failures as the CLI reports them (its password never shown).
import { openDirectoryDatabase, type DirectoryDatabase } from '../server/directory.js';
import { recordedDatabase } from '../server/datadir.js';
import { databaseUrl, sealingKey } from './database.js';
import { databaseFailure } from './server.js';

export { databaseFlag, sealingKeyFileFlag } from './database.js';

/** `fn` on data directory `dir`'s database, closed afterwards. */
export async function onDirectory<T>(
  dir: string,
  flags: { database?: string; 'sealing-key-file'?: string },
  env: NodeJS.ProcessEnv,
  fn: (db: DirectoryDatabase) => Promise<T>,
): Promise<T> {
  const url = databaseUrl(flags.database, {}) ?? recordedDatabase(dir) ?? databaseUrl(undefined, env);
  try {
    const db = await openDirectoryDatabase(dir, {
      database: url,
      sealingKey: () => sealingKey(flags['sealing-key-file'], env),
    });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  } catch (err) {
    throw (url !== undefined && databaseFailure(err, url)) || err;
  }
}
