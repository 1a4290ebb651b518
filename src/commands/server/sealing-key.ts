import { Flags } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { newSealingKey, writeKeyFile } from '../../lib/cli/database.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { shellWord } from '../../lib/output/shell.js';

export default class ServerSealingKey extends BaseCommand {
  static override summary =
    'Make a new key to seal secrets at rest in a shared sandbox on PostgreSQL (not an API key: those are `server keys`)';
  static override description =
    'Prints 64 random hexadecimal characters (32 bytes) on stdout, or writes them to a new file readable by its owner only (--out). Make it once per sandbox and give it to every `server start --database` of that sandbox (--sealing-key-file, PAYORCH_SEALING_KEY_FILE or PAYORCH_SEALING_KEY): the database never holds it, and its data cannot be opened without it.';
  static override examples = [
    '<%= config.bin %> server sealing-key --out sealing.key',
    'kubectl create secret generic payorch-sealing-key --from-literal=key="$(<%= config.bin %> server sealing-key)"',
  ];
  static override flags = {
    out: Flags.string({
      description: 'Write the key to this new file (mode 0600) instead of stdout; an existing file is never replaced',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerSealingKey);
    if (flags.out !== undefined && flags.out.trim() === '')
      throw new CliError('--out is blank; give a file name, or leave the flag out to print the key.', EXIT.USAGE);
    const key = newSealingKey();
    if (flags.out === undefined) {
      await this.print({ sealing_key: key }, () => key);
      return;
    }
    const out = flags.out;
    writeKeyFile(out, key);
    await this.print(
      { file: out },
      () =>
        `Wrote a new sealing key to ${out} (mode 0600). Give it to every process of the sandbox: \`payorch server start --database URL --sealing-key-file ${shellWord(out)}\`, or PAYORCH_SEALING_KEY_FILE.`,
    );
  }
}
