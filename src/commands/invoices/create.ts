import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { parsePriceQuantity, collectionMethodFlag } from '../../lib/cli/billing.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { invoiceFields } from '../../lib/output/views/billing.js';

export default class InvoicesCreate extends ApiCommand {
  static override summary = 'Create a draft invoice';
  static override examples = [
    '<%= config.bin %> invoices create --customer cus_123 --price price_123:2 --item "500=Setup fee"',
  ];
  static override flags = {
    customer: Flags.string({ description: 'Customer id' }),
    currency: Flags.string({ description: 'Currency (default: that of the first price)' }),
    price: Flags.string({
      description: 'A line from a price: PRICE_ID or PRICE_ID:QUANTITY (repeatable)',
      multiple: true,
    }),
    item: Flags.string({ description: 'A line with an amount: AMOUNT=DESCRIPTION (repeatable)', multiple: true }),
    'collection-method': collectionMethodFlag,
    'days-until-due': Flags.integer({ description: 'Days to pay a send_invoice invoice', min: 0 }),
    coupon: Flags.string({ description: 'Coupon id' }),
    description: Flags.string({ description: 'Description' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(InvoicesCreate);
    const customer = await this.need(flags.customer, { flag: 'customer', message: 'Customer id' });
    const items = (flags.item ?? []).map((v) => {
      const m = /^(-?\d+)=(.*)$/.exec(v);
      if (!m) throw new CliError(`--item takes AMOUNT=DESCRIPTION (got "${v}").`, EXIT.USAGE);
      return { amount: Number(m[1]), description: m[2] || undefined };
    });
    const client = await this.client(flags);
    await this.confirmChange(`create a draft invoice for ${customer}`, flags.yes);
    const inv = await client.invoices.create(
      {
        customer,
        currency: flags.currency,
        lines: [...(flags.price ?? []).map((p) => parsePriceQuantity(p, 'price')), ...items],
        collection_method: flags['collection-method'],
        days_until_due: flags['days-until-due'],
        coupon: flags.coupon,
        description: flags.description,
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(inv, 'Draft invoice created', invoiceFields);
  }
}
