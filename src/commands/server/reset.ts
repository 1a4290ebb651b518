import { BaseCommand, yesFlag } from '../../lib/cli/base.js';
import { dataDirFlag } from '../../lib/cli/server.js';
import { confirm } from '../../lib/cli/prompt.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { AlreadyRunningError, defaultDataDir, resetDataDir } from '../../lib/server/datadir.js';
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
    if (!flags.yes && !(await confirm(`Delete every object, key and log in ${dir}?`, this.jsonMode))) {
      throw new CliError('Aborted; nothing was deleted.', EXIT.API, 'aborted');
    }
    try {
      resetDataDir({ companions: sqliteCompanions }, dir);
    } catch (err) {
      if (err instanceof AlreadyRunningError) throw new CliError(err.message, EXIT.USAGE, 'already_running');
      throw err;
    }
    await this.print(
      { reset: true, data_dir: dir },
      () => `Reset ${dir}. The next start creates a new account and key.`,
    );
  }
}
