import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { sessionFields } from '../../lib/output/views/sessions.js';
import { formatMoney } from '../../lib/output/format.js';
import type { PaymentMethodType } from '../../lib/contract/sessions.js';
import { amountFlag, MINOR_UNITS } from '../../lib/cli/amount.js';

export default class SessionsCreate extends ApiCommand {
  static override summary = 'Create a payment session';
  static override examples = [
    '<%= config.bin %> sessions create --amount 1999 --currency usd',
    '<%= config.bin %> sessions create --amount 500 --currency eur --capture-method manual --json',
  ];
  static override flags = {
    amount: amountFlag({ description: `Amount in ${MINOR_UNITS}` }),
    currency: Flags.string({ description: 'Three-letter ISO currency code' }),
    'external-id': Flags.string({ description: 'Your reference for this payment' }),
    description: Flags.string({ description: 'Description' }),
    'customer-email': Flags.string({ description: 'Customer email' }),
    'customer-name': Flags.string({ description: 'Customer name' }),
    'capture-method': Flags.option({
      options: ['automatic', 'manual'] as const,
      description: 'automatic (default) or manual capture',
    })(),
    'payment-method-types': Flags.custom<PaymentMethodType[]>({
      description: 'Comma-separated: card,walletone_pay,wallettwo_pay,bank_account,walletthree',
      // The names go to the server as given; it answers an unknown one with a 400 naming it.
      parse: async (input) => input.split(',').map((s) => s.trim() as PaymentMethodType),
    })(),
    'success-url': Flags.string({ description: 'Where the checkout page sends the customer after paying' }),
    'cancel-url': Flags.string({ description: 'Where the checkout page sends the customer on cancel' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(SessionsCreate);
    const amount = await this.need(flags.amount, {
      flag: 'amount',
      message: `Amount in ${MINOR_UNITS}`,
      kind: 'amount',
    });
    const currency = await this.need(flags.currency, { flag: 'currency', message: 'Currency (e.g. usd)' });
    const customer =
      flags['customer-email'] || flags['customer-name']
        ? { email: flags['customer-email'], name: flags['customer-name'] }
        : undefined;
    const client = await this.client(flags);
    await this.confirmChange(`create a payment session for ${formatMoney(amount, currency)}`, flags.yes);
    const session = await client.sessions.create(
      {
        amount,
        currency,
        external_id: flags['external-id'],
        description: flags.description,
        customer,
        capture_method: flags['capture-method'],
        payment_method_types: flags['payment-method-types'],
        success_url: flags['success-url'],
        cancel_url: flags['cancel-url'],
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(session, 'Payment session created', sessionFields);
  }
}
