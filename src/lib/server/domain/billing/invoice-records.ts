// An invoice as stored and as the API shows it (with its hosted page's link), its events and its saving.
import type { Invoice } from '../../../contract/billing.js';
import type { EventType } from '../../../contract/events.js';
import { hostedLinks } from '../links.js';
import { discountApi } from './coupons.js';
import type { BillingContext, BillingPort, StoredInvoice } from './store.js';

export class InvoiceRecords {
  constructor(readonly billing: BillingContext) {}

  /** The area's documents and queries. */
  get stored(): BillingPort {
    return this.billing.stored;
  }

  toApi(inv: StoredInvoice, baseUrl: string, now: number): Invoice {
    const { first_failed_at: _f, action_kind: _k, action_ms: _m, discount, ...rest } = inv;
    return { ...rest, discount: discountApi(discount, now), hosted_invoice_url: hostedLinks.invoice(baseUrl, inv.id) };
  }

  /** The invoice as the API shows it, for events (and for `previous` snapshots taken before a change). */
  view(inv: StoredInvoice, now: number): Invoice {
    return this.toApi(inv, this.billing.publicUrl(), now);
  }

  async record(accountId: string, type: EventType, inv: StoredInvoice, now: number, previous?: object): Promise<void> {
    await this.billing.events.record(accountId, type, this.view(inv, now), { at: now, previous });
  }

  save(accountId: string, inv: StoredInvoice): Promise<StoredInvoice> {
    return this.stored.invoices.update(accountId, inv);
  }
}
