import { Args } from '@oclif/core';
import { BaseCommand } from '../../../lib/cli/base.js';
import { onSnapshot, snapshotDataDir, snapshotDataDirFlag } from '../../../lib/cli/snapshots.js';
import { deleteSnapshot } from '../../../lib/server/snapshots.js';
import { sqliteSnapshots } from '../../../lib/server/adapters/sqlite/snapshots.js';

export default class ServerSnapshotDelete extends BaseCommand {
  static override summary = 'Delete snapshot NAME of the data directory';
  static override examples = ['<%= config.bin %> server snapshot delete seeded'];
  static override args = {
    name: Args.string({ required: true, description: 'Snapshot name (see `server snapshot list`)' }),
  };
  static override flags = { 'data-dir': snapshotDataDirFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerSnapshotDelete);
    const dir = flags['data-dir'] ?? snapshotDataDir(this.io.env);
    const info = await onSnapshot(dir, args.name, `payorch-cli/${this.config.version}`, async (target) =>
      target.kind === 'server'
        ? await target.client.snapshots.delete(args.name)
        : { ...deleteSnapshot(sqliteSnapshots, dir, args.name), deleted: true as const },
    );
    await this.print(info, () => `Deleted snapshot ${info.name}.`);
  }
}
