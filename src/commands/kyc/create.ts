import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { kycFields } from '../../lib/output/views/identity.js';

export default class KycCreate extends ApiCommand {
  static override summary = 'Create a KYC verification (pending, with the checks of its level)';
  static override examples = ['<%= config.bin %> kyc create --customer cus_123 --level basic --token idt_abc'];
  static override flags = {
    customer: Flags.string({ description: 'Customer id' }),
    level: Flags.option({
      options: ['basic', 'enhanced'] as const,
      description: 'basic: identity + watchlist; enhanced: also document + address',
    })(),
    token: Flags.string({ description: 'Identity token id to check (repeatable)', multiple: true }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(KycCreate);
    const customer = await this.need(flags.customer, { flag: 'customer', message: 'Customer id' });
    const level = await this.need(flags.level, { flag: 'level', message: 'Verification level (basic or enhanced)' });
    const client = await this.client(flags);
    await this.confirmChange(`create a ${level} KYC verification for ${customer}`, flags.yes);
    const k = await client.kycVerifications.create(
      {
        customer_id: customer,
        verification_level: level,
        identity_token_ids: flags.token,
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(k, 'KYC verification created', kycFields);
  }
}
