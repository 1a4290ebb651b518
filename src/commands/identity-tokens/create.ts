import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { ask, interactive } from '../../lib/cli/prompt.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { IDENTITY_TOKEN_TYPES } from '../../lib/contract/limits.js';
import { tokenFields } from '../../lib/output/views/identity.js';

export default class IdentityTokensCreate extends ApiCommand {
  static override summary = 'Vault a personal identifier (SSN, EIN, passport number, …)';
  static override description =
    'The value is never taken from the command line (it would land in shell history and the process list): it is read from a masked prompt on a terminal, or from stdin. Only the masked value is shown.';
  static override examples = [
    '<%= config.bin %> identity-tokens create --type ssn',
    'printf %s "$SSN" | <%= config.bin %> identity-tokens create --type ssn --field-name applicant_ssn',
  ];
  static override flags = {
    type: Flags.option({ options: IDENTITY_TOKEN_TYPES, description: 'What the value is' })(),
    'field-name': Flags.string({ description: 'Your name for the field this value belongs to' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(IdentityTokensCreate);
    const type = await this.need(flags.type, { flag: 'type', message: `Type (${IDENTITY_TOKEN_TYPES.join(', ')})` });
    let value: string;
    if (!this.io.stdinIsTTY) {
      value = this.io.readStdin().replace(/\r?\n$/, '');
      if (value === '')
        throw new CliError(
          'No value on stdin: pipe the value in, or run on a terminal to be asked for it (never pass it as an argument).',
          EXIT.USAGE,
        );
    } else if (interactive(this.jsonMode, this.io)) {
      value = await ask({ flag: 'value', message: `Value (${type}; input hidden)`, kind: 'password' }, this.io);
    } else {
      throw new CliError(
        'The value is read from a masked prompt on a terminal or from stdin; neither is available.',
        EXIT.USAGE,
      );
    }
    const client = await this.client(flags);
    await this.confirmChange(`vault a ${type} identifier`, flags.yes);
    const token = await client.identityTokens.create(
      { type: type, value, field_name: flags['field-name'] },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(token, 'Identity token created', tokenFields);
  }
}
