import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { kycFields } from '../../lib/output/views/identity.js';

export default class KycSubmit extends ApiCommand {
  static override summary = 'Submit a KYC verification for processing (the outcome follows on the clock)';
  static override examples = ['<%= config.bin %> kyc submit kyc_…', '<%= config.bin %> kyc submit kyc_… --token idt_…'];
  static override args = { id: Args.string({ description: 'Verification id (kyc_…)', required: true }) };
  static override flags = {
    token: Flags.string({
      description: 'Add an identity token id (repeatable; e.g. after requires_input)',
      multiple: true,
    }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(KycSubmit);
    const client = await this.client(flags);
    await this.confirmChange(`submit KYC verification ${args.id}`, flags.yes);
    const k = await client.kycVerifications.submit(
      args.id,
      { identity_token_ids: flags.token },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(k, 'KYC verification submitted', kycFields);
  }
}
