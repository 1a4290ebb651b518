import { BaseCommand } from '../../../lib/cli/base.js';
import { dataDirFlag } from '../../../lib/cli/server.js';
import { defaultDataDir } from '../../../lib/server/datadir.js';
import { databaseFlag, onDirectory } from '../../../lib/cli/directory.js';
import { formatTime } from '../../../lib/output/format.js';

export default class ServerKeysList extends BaseCommand {
  static override summary = 'List the API keys of the local server (masked)';
  static override examples = ['<%= config.bin %> server keys list'];
  static override flags = { 'data-dir': dataDirFlag, database: databaseFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerKeysList);
    const keys = await onDirectory(flags['data-dir'] ?? defaultDataDir(), flags, this.io.env, (db) =>
      db.accounts.listKeys(),
    );
    await this.table({ data: keys }, [
      { header: 'ID', value: (k) => k.id },
      { header: 'KEY', value: (k) => k.masked },
      { header: 'ACCOUNT', value: (k) => k.account_id },
      { header: 'STATUS', value: (k) => (k.revoked_at ? 'revoked' : 'active'), status: true },
      { header: 'CREATED', value: (k) => formatTime(k.created_at) },
    ]);
  }
}
