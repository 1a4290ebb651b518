import { ApiCommand } from '../lib/cli/base.js';
import { tableText } from '../lib/output/render.js';

export default class TestCards extends ApiCommand {
  static override summary =
    'Every test value of the test-mode server: cards, wallet tokens, ACH accounts, micro-deposits and KYC values, and what each does';
  static override description =
    'Cards, wallet tokens, ACH accounts and micro-deposit amounts come from the server (GET /test-cards; --json prints that object exactly). The micro-deposit rules and the KYC identity-token values are those of the bundled test-mode server.';
  static override examples = [
    '<%= config.bin %> test-cards',
    '<%= config.bin %> test-cards --json | jq -r \'.cards[] | select(.result == "success") | .token\'',
  ];

  async run(): Promise<unknown> {
    const { flags } = await this.parse(TestCards);
    const v = await (await this.client(flags)).processors.testValues();
    return this.print(v, async () => {
      // The server's own constants (not copies): loaded only for the human view.
      const [{ KYC_TEST_VALUES, KYC_PROCESSING_MS }, { MICRODEPOSIT_ATTEMPTS, MICRODEPOSIT_TTL_MS }] =
        await Promise.all([
          import('../lib/server/domain/identity/kyc.js'),
          import('../lib/server/domain/payments/bankaccounts.js'),
        ]);
      const kyc = [
        { value: KYC_TEST_VALUES.identityMismatch, result: 'identity check fails (identity_mismatch) → rejected' },
        { value: KYC_TEST_VALUES.watchlistMatch, result: 'watchlist check fails (watchlist_match) → rejected' },
        {
          value: KYC_TEST_VALUES.identityUnverifiable,
          result: 'identity check undecided (identity_unverifiable) → requires_input',
        },
        { value: '(no identity-number token)', result: 'missing_identity_number → requires_input' },
        { value: '(enhanced, no document token)', result: 'missing_document → requires_input' },
        { value: '(any other value)', result: 'verified' },
      ];
      return [
        await tableText(v.cards, [
          { header: 'TOKEN', value: (c) => c.token },
          { header: 'NUMBER', value: (c) => c.number },
          { header: 'BRAND', value: (c) => c.brand, optional: true },
          { header: 'RESULT', value: (c) => c.description, shrink: 'wrap' },
        ]),
        await tableText(v.wallet_tokens, [
          { header: 'WALLET TOKEN', value: (w) => w.token },
          { header: 'RESULT', value: (w) => w.result, shrink: 'wrap' },
        ]),
        await tableText(v.bank_accounts, [
          { header: 'ROUTING', value: (b) => b.routing_number },
          { header: 'ACCOUNT', value: (b) => b.account_number },
          { header: 'RESULT', value: (b) => b.result, shrink: 'wrap' },
        ]),
        `Micro-deposit amounts: ${v.microdeposit_amounts.join(' and ')} cents (either order; ${MICRODEPOSIT_ATTEMPTS} attempts, ${MICRODEPOSIT_TTL_MS / 86_400_000} days).`,
        await tableText(kyc, [
          { header: 'KYC IDENTITY-TOKEN VALUE', value: (k) => k.value },
          {
            header: `RESULT (${KYC_PROCESSING_MS / 1000} s after submit, on the account's clock)`,
            value: (k) => k.result,
            shrink: 'wrap',
          },
        ]),
      ].join('\n\n');
    });
  }
}
