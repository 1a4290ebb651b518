import { BaseCommand } from '../../lib/cli/base.js';
import { databaseFlag, databaseUrl } from '../../lib/cli/database.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { databaseFailure } from '../../lib/cli/server.js';
import { describeUrl } from '../../lib/server/database-url.js';

export default class ServerMigrate extends BaseCommand {
  static override summary = "Apply the server's schema migrations to a PostgreSQL database, then exit";
  static override description =
    'Every `server start --database` applies them too (the first process to start does, the others wait for it); run this before rolling out a new payorch to a shared sandbox, or to see that the database is reachable. Safe to run at any time, from any number of machines at once.';
  static override examples = [
    '<%= config.bin %> server migrate --database postgres://payorch@db.internal:5432/sandbox',
    'PAYORCH_DATABASE_URL=postgres://payorch@db.internal:5432/sandbox <%= config.bin %> server migrate --json',
  ];
  static override flags = { database: databaseFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerMigrate);
    const url = databaseUrl(flags.database, this.io.env);
    if (url === undefined)
      throw new CliError('Which database? Give --database URL, or set PAYORCH_DATABASE_URL.', EXIT.USAGE);
    const { migrateDatabase } = await import('../../lib/server/shared-database.js');
    let applied: number[];
    try {
      ({ applied } = await migrateDatabase(url));
    } catch (err) {
      throw databaseFailure(err, url) ?? err;
    }
    const database = describeUrl(url);
    await this.print({ applied, database }, () =>
      applied.length === 0
        ? `${database} is up to date: no migration to apply.`
        : `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${database} (version${applied.length === 1 ? '' : 's'} ${applied.join(', ')}).`,
    );
  }
}
