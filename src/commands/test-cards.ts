import { ApiCommand } from '../lib/cli/base.js';
import { tableText } from '../lib/output/render.js';

export default class TestCards extends ApiCommand {
  static override summary = 'The test cards, wallet tokens and ACH accounts of the local processors, and what each does';

  async run(): Promise<unknown> {
    const { flags } = await this.parse(TestCards);
    const v = await (await this.client(flags)).processors.testValues();
    return await this.print(v, async () =>
      [
        await tableText(v.cards, [
          { header: 'TOKEN', value: (c) => c.token },
          { header: 'NUMBER', value: (c) => c.number },
          { header: 'BRAND', value: (c) => c.brand },
          { header: 'RESULT', value: (c) => c.description },
        ]),
        await tableText(v.wallet_tokens, [
          { header: 'WALLET TOKEN', value: (w) => w.token },
          { header: 'RESULT', value: (w) => w.result },
        ]),
        await tableText(v.bank_accounts, [
          { header: 'ROUTING', value: (b) => b.routing_number },
          { header: 'ACCOUNT', value: (b) => b.account_number },
          { header: 'RESULT', value: (b) => b.result },
        ]),
        `Micro-deposit amounts: ${v.microdeposit_amounts.join(' and ')} cents.`,
      ].join('\n\n'),
    );
  }
}
