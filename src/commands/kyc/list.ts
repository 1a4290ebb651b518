import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { kycColumns } from '../../lib/output/views/identity.js';

export default class KycList extends ApiCommand {
  static override summary = 'List KYC verifications, newest first';
  static override examples = ['<%= config.bin %> kyc list --status requires_input'];
  static override flags = {
    ...listFlags,
    status: Flags.option({
      options: ['pending', 'processing', 'verified', 'rejected', 'requires_input', 'canceled'] as const,
      description: 'Only verifications in this status',
    })(),
    customer: Flags.string({ description: 'Only verifications of this customer id' }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(KycList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { status: flags.status, customer: flags.customer },
      (p) => client.kycVerifications.list(p),
      (p) => client.kycVerifications.listAll(p),
    );
    return await this.table(list, kycColumns, 'No KYC verifications.');
  }
}
