import { BaseCommand, yesFlag } from '../../lib/cli/base.js';
import { dataDirFlag } from '../../lib/cli/server.js';
import { confirm } from '../../lib/cli/prompt.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { AlreadyRunningError, defaultDataDir, recordedDatabase, resetDataDir } from '../../lib/server/datadir.js';
import { describeUrl } from '../../lib/server/database-url.js';
import { sqliteCompanions } from '../../lib/server/adapters/sqlite/files.js';

export default class ServerReset extends BaseCommand {
  static override summary = 'Delete all data of a data directory (asks first; --yes skips)';
  static override examples = [
    '<%= config.bin %> server reset',
    '<%= config.bin %> server reset --data-dir ./payorch-data',
  ];
  static override flags = { 'data-dir': dataDirFlag, yes: yesFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerReset);
    const dir = flags['data-dir'] ?? defaultDataDir();
    const recorded = recordedDatabase(dir);
    // A server on PostgreSQL keeps its objects and keys there: a reset of its directory forgets the database only.
    const shared = recorded === undefined ? '' : ` (the PostgreSQL database ${describeUrl(recorded)} is not touched)`;
    const what =
      recorded === undefined ? 'every object, key and log' : 'the log, the default key and the database named';
    if (!flags.yes && !(await confirm(`Delete ${what} in ${dir}${shared}?`, this.jsonMode))) {
      throw new CliError('Aborted; nothing was deleted.', EXIT.API, 'aborted');
    }
    try {
      resetDataDir({ companions: sqliteCompanions }, dir);
    } catch (err) {
      if (err instanceof AlreadyRunningError) throw new CliError(err.message, EXIT.USAGE, 'already_running');
      throw err;
    }
    await this.print({ reset: true, data_dir: dir }, () =>
      recorded === undefined ? `Reset ${dir}. The next start creates a new account and key.` : `Reset ${dir}${shared}.`,
    );
  }
}
