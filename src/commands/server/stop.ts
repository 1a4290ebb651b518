import { BaseCommand } from '../../lib/cli/base.js';
import { dataDirFlag } from '../../lib/cli/server.js';
import { defaultDataDir, isAlive, readLock } from '../../lib/server/datadir.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';

export default class ServerStop extends BaseCommand {
  static override summary = 'Stop the server running on a data directory (SIGTERM, then wait)';
  static override examples = ['<%= config.bin %> server stop', '<%= config.bin %> server stop --data-dir ./payorch-data'];
  static override flags = { 'data-dir': dataDirFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerStop);
    const dir = flags['data-dir'] ?? defaultDataDir();
    const lock = readLock(dir);
    if (!lock) {
      this.print({ stopped: false, running: false, data_dir: dir }, () => `No server is running on ${dir}.`);
      return;
    }
    process.kill(lock.pid, 'SIGTERM');
    for (let i = 0; i < 100 && isAlive(lock.pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(lock.pid)) throw new CliError(`The server (pid ${lock.pid}) did not stop within 10 s.`, EXIT.API, 'stop_timeout');
    this.print({ stopped: true, pid: lock.pid, data_dir: dir }, () => `Stopped the server (pid ${lock.pid}) on ${lock.base_url ?? dir}.`);
  }
}
