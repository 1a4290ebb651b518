import { Args } from '@oclif/core';
import { BaseCommand } from '../../../lib/cli/base.js';
import { onSnapshot, snapshotDataDir, snapshotDataDirFlag } from '../../../lib/cli/snapshots.js';
import { restoreSnapshotStopped } from '../../../lib/server/datadir.js';
import { sqliteEngine } from '../../../lib/server/adapters/sqlite/engine.js';

export default class ServerSnapshotRestore extends BaseCommand {
  static override summary = "Put the data directory's database back to snapshot NAME";
  static override description =
    "On a running server: atomically (requests are held while those in flight finish, then see only the restored data); webhook deliveries, test clocks and the request log follow the restored data. Keys made after the snapshot no longer work, except the data directory's default key (the one the CLI uses). The snapshot stays, to be restored again.";
  static override examples = [
    '<%= config.bin %> server snapshot restore seeded',
    '<%= config.bin %> server snapshot restore seeded --data-dir ./payorch-data --json',
  ];
  static override args = {
    name: Args.string({ required: true, description: 'Snapshot name (see `server snapshot list`)' }),
  };
  static override flags = { 'data-dir': snapshotDataDirFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerSnapshotRestore);
    const dir = flags['data-dir'] ?? snapshotDataDir(this.io.env);
    const [answer, human] = await onSnapshot(dir, args.name, `payorch-cli/${this.config.version}`, async (target) => {
      if (target.kind === 'server') {
        const r = await target.client.snapshots.restore(args.name);
        return [
          r,
          `Restored snapshot ${r.name} on the server at ${target.baseUrl} (requests held ${r.paused_ms} ms).`,
        ] as const;
      }
      const r = await restoreSnapshotStopped(sqliteEngine, dir, args.name);
      return [
        { object: 'snapshot_restore', name: r.name, data_dir: dir },
        `Restored snapshot ${r.name} in ${dir}.`,
      ] as const;
    });
    await this.print(answer, () => human);
  }
}
