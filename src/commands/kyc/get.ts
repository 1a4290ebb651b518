import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { kycFields } from '../../lib/output/views/identity.js';

export default class KycGet extends ApiCommand {
  static override summary = 'Show a KYC verification and its checks';
  static override examples = ['<%= config.bin %> kyc get kyc_…'];
  static override args = { id: Args.string({ description: 'Verification id (kyc_…)', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(KycGet);
    const k = await (await this.client(flags)).kycVerifications.retrieve(args.id);
    return this.detail(k, 'KYC verification', kycFields);
  }
}
