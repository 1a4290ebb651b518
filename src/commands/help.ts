import { Args, loadHelpClass } from '@oclif/core';
import { BaseCommand } from '../lib/cli/base.js';
import { CliError, EXIT } from '../lib/cli/errors.js';

export default class Help extends BaseCommand {
  static override summary = 'Show help for payorch, a topic or a command';
  static override description = 'The same text as `--help` / `-h` after a command. Topics list their commands.';
  static override examples = [
    '<%= config.bin %> help',
    '<%= config.bin %> help sessions',
    '<%= config.bin %> help sessions create',
  ];
  static override strict = false;
  static override args = {
    command: Args.string({ description: 'A topic or command, words separated by spaces', required: false }),
  };

  async run(): Promise<unknown> {
    const { argv } = await this.parse(Help);
    const words = (argv as string[]).filter((w) => w !== '--json');
    const id = words.join(':');
    if (id && !this.config.findCommand(id) && !this.config.findTopic(id)) {
      throw new CliError(
        `No command or topic \`${words.join(' ')}\`. \`${this.config.bin} help\` lists them.`,
        EXIT.USAGE,
      );
    }
    // oclif's own help renderer (@oclif/core's Help), the one `--help` uses.
    const HelpClass = await loadHelpClass(this.config);
    await new HelpClass(this.config, this.config.pjson.oclif.helpOptions).showHelp(words);
    return { help: words.join(' ') };
  }
}
