// What the hosted pages may do without an API key: the invoice page pays one open invoice (its id is the
// capability); the portal (a live portal session id is the capability) shows one customer's subscriptions
// and invoices, cancels a subscription at period end and replaces the default card. Card numbers are
// turned into test-card tokens at once and never stored.
import type { CheckoutSession, Customer, Invoice, PortalSession, Subscription } from '../../../contract/billing.js';
import type { Checkouts } from './checkout.js';
import type { Clock } from '../../clock.js';
import { errors } from '../../errors.js';
import { mapCommitted, type Committed } from '../outcome.js';
import { testCardByNumber, testCardByToken, luhnValid } from '../testcards.js';
import type { Invoices } from './invoices.js';
import type { BillingContext } from './store.js';
import type { Subscriptions } from './subscriptions.js';
import { recordUpdate } from '../record.js';

export interface PortalView {
  accountId: string;
  session: PortalSession;
  customer: Customer;
  card: string | null;
  subscriptions: Subscription[];
  invoices: Invoice[];
}

/** A card number typed on a page → its test-card token (400 when it is not a known test card). */
export function tokenForCard(number: string, param = 'card_number'): string {
  const digits = number.replace(/[\s-]/g, '');
  if (!luhnValid(digits)) throw errors.parameterInvalid(param, 'is not a valid card number');
  const card = testCardByNumber(digits);
  if (!card)
    throw errors.invalidRequest(
      'card_declined',
      'The test-mode server only accepts the test card numbers (see GET /test-cards or docs/api.md).',
      param,
    );
  return card.token;
}

export function cardLabel(pm: string | null): string | null {
  if (!pm) return null;
  const card = testCardByToken(pm);
  return card?.number ? `${card.brand} •••• ${card.number.slice(-4)}` : pm;
}

export class Hosted {
  constructor(
    private readonly billing: BillingContext,
    private readonly clock: Clock,
    private readonly invoices: Invoices,
    private readonly subscriptions: Subscriptions,
    private readonly checkouts: Checkouts,
  ) {}

  /** A subscription-mode checkout session (payment mode has the payment session's own page). */
  private async findCheckout(id: string): Promise<{ accountId: string; now: number }> {
    const row = await this.billing.stored.findCheckout(id);
    if (!row || row.doc.mode !== 'subscription') throw errors.notFound('checkout_session', id, 'checkout_session_id');
    return { accountId: row.accountId, now: this.clock.now(row.accountId) };
  }

  async checkoutPage(id: string): Promise<CheckoutSession> {
    return this.checkouts.get((await this.findCheckout(id)).accountId, id);
  }

  async completeCheckout(id: string, cardNumber: string): Promise<CheckoutSession> {
    const { accountId, now } = await this.findCheckout(id);
    return this.checkouts.complete(accountId, id, { payment_method: tokenForCard(cardNumber) }, now);
  }

  /** The invoice's account (drafts are not shown on the hosted page). */
  private async findInvoice(id: string): Promise<{ accountId: string; now: number }> {
    const row = await this.billing.stored.findInvoice(id);
    if (!row || row.doc.status === 'draft') throw errors.notFound('invoice', id, 'invoice_id');
    return { accountId: row.accountId, now: this.clock.now(row.accountId) };
  }

  async invoicePage(id: string, baseUrl: string): Promise<{ inv: Invoice; customer: Customer | undefined }> {
    const { accountId, now } = await this.findInvoice(id);
    const inv = this.invoices.toApi(await this.invoices.load(accountId, id), baseUrl, now);
    return { inv, customer: await this.billing.stored.customers.get(accountId, inv.customer) };
  }

  /** Pays an open (or past_due, uncollectible) invoice with a test card typed on the page. */
  async payInvoice(id: string, cardNumber: string, baseUrl: string): Promise<Committed<Invoice>> {
    const { accountId, now } = await this.findInvoice(id);
    const pm = tokenForCard(cardNumber);
    return mapCommitted(await this.invoices.pay(accountId, id, { payment_method: pm }, now), (inv) =>
      this.invoices.toApi(inv, baseUrl, now),
    );
  }

  private async portal(id: string): Promise<{ accountId: string; session: PortalSession; now: number }> {
    const row = await this.billing.stored.findPortal(id);
    if (!row) throw errors.notFound('portal_session', id, 'portal_session_id');
    const now = this.clock.now(row.accountId);
    if (Date.parse(row.doc.expires_at) <= now) throw errors.notFound('portal_session', id, 'portal_session_id');
    return { accountId: row.accountId, session: row.doc, now };
  }

  async portalView(id: string, baseUrl: string): Promise<PortalView> {
    const { accountId, session, now } = await this.portal(id);
    const customer = await this.billing.stored.customers.require(accountId, session.customer, 'customer');
    // newest first
    const subscriptions: Subscription[] = [];
    for (const s of (await this.billing.stored.subscriptionsOf(accountId, customer.id)).reverse())
      subscriptions.push(await this.subscriptions.toApi(accountId, s, now));
    const invoices = (await this.billing.stored.finalizedInvoicesOf(accountId, customer.id))
      .map((inv) => this.invoices.toApi(inv, baseUrl, now))
      .reverse();
    return { accountId, session, customer, card: cardLabel(customer.default_payment_method), subscriptions, invoices };
  }

  async cancelAtPeriodEnd(portalId: string, subscriptionId: string): Promise<Subscription> {
    const { accountId, session, now } = await this.portal(portalId);
    const sub = await this.billing.stored.subscriptions.get(accountId, subscriptionId);
    if (!sub || sub.customer !== session.customer)
      throw errors.notFound('subscription', subscriptionId, 'subscription_id');
    return this.subscriptions.toApi(
      accountId,
      await this.subscriptions.cancel(accountId, subscriptionId, { at_period_end: true }, now),
      now,
    );
  }

  async updateCard(
    portalId: string,
    cardNumber: string,
  ): Promise<{ default_payment_method: string; card: string | null }> {
    const { accountId, session, now } = await this.portal(portalId);
    const pm = tokenForCard(cardNumber);
    const c = await this.billing.stored.customers.require(accountId, session.customer, 'customer');
    const previous = { ...c };
    c.default_payment_method = pm;
    await this.billing.stored.customers.update(accountId, c);
    await recordUpdate(this.billing.events, accountId, 'customer.updated', c, previous, now);
    return { default_payment_method: pm, card: cardLabel(pm) };
  }
}
