import { BaseCommand } from '../../../lib/cli/base.js';
import { snapshotCliError, snapshotDataDir, snapshotDataDirFlag, snapshotTarget } from '../../../lib/cli/snapshots.js';
import { listSnapshots } from '../../../lib/server/snapshots.js';
import { refuseSharedSnapshots } from '../../../lib/server/datadir.js';
import { sqliteSnapshots } from '../../../lib/server/adapters/sqlite/snapshots.js';
import { snapshotColumns } from '../../../lib/output/views/snapshots.js';

export default class ServerSnapshotList extends BaseCommand {
  static override summary = "List the data directory's snapshots";
  static override examples = [
    '<%= config.bin %> server snapshot list',
    '<%= config.bin %> server snapshot list --json',
  ];
  static override flags = { 'data-dir': snapshotDataDirFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerSnapshotList);
    const dir = flags['data-dir'] ?? snapshotDataDir(this.io.env);
    try {
      const target = await snapshotTarget(dir, `payorch-cli/${this.config.version}`);
      if (target.kind === 'files') refuseSharedSnapshots(dir);
      const list =
        target.kind === 'server'
          ? await target.client.snapshots.list()
          : {
              object: 'list' as const,
              data: listSnapshots(sqliteSnapshots, dir),
              has_more: false as const,
              url: '/test-helpers/snapshots',
            };
      await this.table(list, snapshotColumns, `No snapshots in ${dir} (\`payorch server snapshot save NAME\`).`);
    } catch (err) {
      throw await snapshotCliError(err);
    }
  }
}
