import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import type { MerchantSession } from '../../lib/contract/payments.js';
import type { Field } from '../../lib/output/render.js';

const fields: Field<MerchantSession>[] = [
  { label: 'session', value: (m) => m.session_id },
  { label: 'merchant session', value: (m) => m.merchant_session_identifier },
  { label: 'domain', value: (m) => m.domain_name },
  { label: 'display name', value: (m) => m.display_name },
  { label: 'expires (ms)', value: (m) => m.expires_at },
];

export default class WalletsValidateMerchant extends ApiCommand {
  static override summary =
    'Validate the merchant for a walletone_pay payment sheet (the server never fetches the URL)';
  static override examples = [
    '<%= config.bin %> wallets validate-merchant --session 0190f3c2-… --validation-url https://apple-pay-gateway.apple.com/paymentservices/startSession --domain shop.example.com',
  ];
  static override flags = {
    session: Flags.string({ description: 'Session id (UUID); the session must allow walletone_pay', required: true }),
    'validation-url': Flags.string({
      description: 'The https validation URL the wallet gave the page',
      required: true,
    }),
    domain: Flags.string({ description: 'Your checkout domain', required: true }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(WalletsValidateMerchant);
    const result = await (
      await this.client(flags)
    ).wallets.validateMerchant({
      session_id: flags.session,
      validation_url: flags['validation-url'],
      domain: flags.domain,
    });
    return this.detail(result, 'Merchant session', fields);
  }
}
