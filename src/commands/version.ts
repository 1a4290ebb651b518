import { BaseCommand } from '../lib/cli/base.js';

export default class Version extends BaseCommand {
  static override summary = 'Print the version of payorch, of Node and the platform (the same line as --version)';
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json'];

  async run(): Promise<unknown> {
    await this.parse(Version);
    const info = {
      name: this.config.name,
      version: this.config.version,
      platform: process.platform,
      arch: process.arch,
      node: process.version,
    };
    // The line bin/run.js prints for --version (test/cli/terminal.test.ts holds them equal).
    return await this.print(info, () => `${info.name}/${info.version} ${info.platform}-${info.arch} node-${info.node}`);
  }
}
