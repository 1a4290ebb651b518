import { Args } from '@oclif/core';
import { BaseCommand } from '../../../lib/cli/base.js';
import { onSnapshot, snapshotDataDir, snapshotDataDirFlag } from '../../../lib/cli/snapshots.js';
import { saveSnapshotStopped } from '../../../lib/server/datadir.js';
import { sqliteEngine } from '../../../lib/server/adapters/sqlite/engine.js';
import { formatSize } from '../../../lib/output/views/snapshots.js';

export default class ServerSnapshotSave extends BaseCommand {
  static override summary = "Save a snapshot of the data directory's database as NAME (replacing one of that name)";
  static override description =
    'A consistent copy of the database, secrets sealed as in the database. On SQLite (the default) it is snapshots/NAME.sqlite in the data directory, saved through the server running on it (which goes on answering meanwhile) or from the stopped directory. On a shared PostgreSQL database (`server start --database`) it is kept in that database, saved through a running server, and every process of the sandbox sees it.';
  static override examples = [
    '<%= config.bin %> server snapshot save seeded',
    '<%= config.bin %> server snapshot save seeded --data-dir ./payorch-data --json',
  ];
  static override args = {
    name: Args.string({ required: true, description: 'Snapshot name: letters, digits, `.`, `_`, `-`' }),
  };
  static override flags = { 'data-dir': snapshotDataDirFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerSnapshotSave);
    const dir = flags['data-dir'] ?? snapshotDataDir(this.io.env);
    const { info, target } = await onSnapshot(dir, args.name, `payorch-cli/${this.config.version}`, async (target) => ({
      target,
      info:
        target.kind === 'server'
          ? await target.client.snapshots.save(args.name)
          : await saveSnapshotStopped(sqliteEngine, dir, args.name),
    }));
    await this.print(
      info,
      () =>
        `Saved snapshot ${info.name} (${formatSize(info.size)}) of ${dir}${target.kind === 'server' ? ` (server at ${target.baseUrl})` : ''}.`,
    );
  }
}
