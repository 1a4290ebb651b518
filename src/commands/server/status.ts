import { BaseCommand } from '../../lib/cli/base.js';
import { dataDirFlag, probeHealth } from '../../lib/cli/server.js';
import { defaultDataDir, readLock } from '../../lib/server/datadir.js';
import { EXIT } from '../../lib/cli/errors.js';
import { detailText } from '../../lib/output/render.js';

export default class ServerStatus extends BaseCommand {
  static override summary = 'Is a server running on the data directory? (exit 0 yes, 4 no)';
  static override examples = ['<%= config.bin %> server status', '<%= config.bin %> server status --json'];
  static override flags = { 'data-dir': dataDirFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerStatus);
    const dir = flags['data-dir'] ?? defaultDataDir();
    const lock = readLock(dir);
    const healthy = lock?.base_url ? await probeHealth(lock.base_url) : false;
    const view = { running: Boolean(lock), healthy, pid: lock?.pid ?? null, base_url: lock?.base_url ?? null, data_dir: dir, started_at: lock?.started_at ?? null };
    this.print(view, () =>
      lock
        ? detailText(view, `Server ${healthy ? 'running' : 'not answering'}`, [
            { label: 'url', value: (v) => v.base_url },
            { label: 'pid', value: (v) => v.pid },
            { label: 'data', value: (v) => v.data_dir },
            { label: 'since', value: (v) => v.started_at },
          ])
        : `No server is running on ${dir}.`,
    );
    if (!healthy) process.exitCode = EXIT.UNREACHABLE;
  }
}
