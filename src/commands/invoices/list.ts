import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { CUSTOMER_LOOKUPS, customersOf } from '../../lib/cli/billing.js';
import { invoiceColumns } from '../../lib/output/views/billing.js';

export default class InvoicesList extends ApiCommand {
  static override summary = 'List invoices, newest first';
  static override description = `The CUSTOMER column says who (email, else name; the id when neither, or past the first ${CUSTOMER_LOOKUPS} customers of a list): each customer is looked up once. --json prints the invoices exactly, with customer ids.`;
  static override examples = ['<%= config.bin %> invoices list --customer cus_… --status open'];
  static override flags = {
    ...listFlags,
    customer: Flags.string({ description: 'Only invoices of this customer' }),
    subscription: Flags.string({ description: 'Only invoices of this subscription' }),
    status: Flags.option({
      description: 'Only invoices in this status',
      options: ['draft', 'open', 'paid', 'void', 'uncollectible', 'past_due'] as const,
    })(),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(InvoicesList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { customer: flags.customer, subscription: flags.subscription, status: flags.status },
      (p) => client.invoices.list(p),
      (p) => client.invoices.listAll(p),
    );
    if (this.jsonMode) return await this.table(list, invoiceColumns(), 'No invoices.');
    const { customers, skipped } = await customersOf(
      client,
      list.data.map((i) => i.customer),
    );
    if (skipped > 0)
      this.notice(`${skipped} more customers are shown by id (the first ${CUSTOMER_LOOKUPS} were looked up).`);
    return await this.table(list, invoiceColumns(customers), 'No invoices.');
  }
}
