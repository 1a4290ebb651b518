import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { accountFields } from '../../lib/output/views/ledger.js';

export default class LedgerCreate extends ApiCommand {
  static override summary = 'Create a ledger account';
  static override examples = [
    '<%= config.bin %> ledger create --name "Customer wallet" --type liability --currency usd --customer cus_123',
  ];
  static override flags = {
    name: Flags.string({ description: 'Account name' }),
    type: Flags.option({
      options: ['asset', 'liability', 'equity', 'revenue', 'expense'] as const,
      description: 'Account type (asset/expense are debit-normal, the rest credit-normal)',
    })(),
    currency: Flags.string({ description: 'Three-letter ISO currency code' }),
    description: Flags.string({ description: 'Description' }),
    customer: Flags.string({ description: 'Customer id this account belongs to' }),
    'external-reference': Flags.string({ description: 'Your reference for this account' }),
    'account-number': Flags.string({ description: 'Account number (default: generated)' }),
    system: Flags.boolean({ description: 'A system account (may go below zero available)' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(LedgerCreate);
    const name = await this.need(flags.name, { flag: 'name', message: 'Account name' });
    const type = await this.need(flags.type, {
      flag: 'type',
      message: 'Account type (asset, liability, equity, revenue, expense)',
    });
    const currency = await this.need(flags.currency, { flag: 'currency', message: 'Currency (e.g. usd)' });
    const client = await this.client(flags);
    await this.confirmChange(`create ledger account "${name}" (${type}, ${currency.toUpperCase()})`, flags.yes);
    const account = await client.ledgerAccounts.create(
      {
        name,
        account_type: type,
        currency,
        description: flags.description,
        customer_id: flags.customer,
        external_reference: flags['external-reference'],
        account_number: flags['account-number'],
        is_system_account: flags.system ? true : undefined,
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(account, 'Ledger account created', accountFields);
  }
}
