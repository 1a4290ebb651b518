import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { bankAccountFields } from '../../lib/output/views/payments.js';

export default class BankAccountsCreate extends ApiCommand {
  static override summary = 'Add an ACH bank account (the full numbers are stored encrypted and never shown again)';
  static override examples = [
    '<%= config.bin %> bank-accounts create --routing-number 110000000 --account-number 000123456789 --holder-name "Jenny Rosen"',
  ];
  static override flags = {
    'account-number': Flags.string({
      description: 'Account number, 4–17 digits (prompted, hidden, on a terminal when omitted)',
    }),
    'routing-number': Flags.string({ description: 'ABA routing number, 9 digits' }),
    'holder-name': Flags.string({ description: 'Account holder name' }),
    customer: Flags.string({ description: 'Customer id (cus_…)' }),
    'account-type': Flags.option({
      options: ['checking', 'savings'] as const,
      description: 'checking (default) or savings',
    })(),
    country: Flags.string({ description: 'Two-letter country (default US)' }),
    currency: Flags.string({ description: 'Currency (default USD)' }),
    nickname: Flags.string({ description: 'Nickname' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(BankAccountsCreate);
    const routing = await this.need(flags['routing-number'], {
      flag: 'routing-number',
      message: 'Routing number (9 digits)',
    });
    const number = await this.need(flags['account-number'], {
      flag: 'account-number',
      message: 'Account number',
      kind: 'password',
    });
    const holder = await this.need(flags['holder-name'], { flag: 'holder-name', message: 'Account holder name' });
    const client = await this.client(flags);
    await this.confirmChange(`add bank account ••••${number.slice(-4)} for ${holder}`, flags.yes);
    const ba = await client.bankAccounts.create(
      {
        routing_number: routing,
        account_number: number,
        holder_name: holder,
        customer_id: flags.customer,
        account_type: flags['account-type'],
        country: flags.country,
        currency: flags.currency,
        nickname: flags.nickname,
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(ba, 'Bank account created', bankAccountFields);
  }
}
