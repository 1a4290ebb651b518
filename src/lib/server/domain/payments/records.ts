// The stored payments (what is kept of a payment: StoredPayment, with the port in persistence.ts): how they read
// as the API object, and the status changes and records that confirm, 3DS, capture, refund and ACH settlement
// share (payment events, ledger postings).
// Every method runs inside the caller's transaction.
import type { Payment, PaymentStatus } from '../../../contract/payments.js';
import type { SessionStatus } from '../../../contract/sessions.js';
import type { EventType } from '../../../contract/events.js';
import type { Documents } from '../../store/seam.js';
import type { Hooks } from '../hooks.js';
import type { Events } from '../events.js';
import { hostedLinks } from '../links.js';
import type { PaymentsPort, StoredPayment } from './persistence.js';

/** The 3DS protocol version the test challenge speaks (reported in `three_d_secure.version`). */
export const THREEDS_VERSION = '2.2.0';

/** The payment events of each status (the live service's names); a pending ACH debit records none until it settles. */
const PAYMENT_EVENTS: Partial<Record<PaymentStatus, EventType>> = {
  requires_action: 'payment.requires_action',
  authorized: 'payment.authorized',
  captured: 'payment.captured',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
};

/** The status the API shows: a payment stored by an earlier version as `pending` during a 3DS challenge reads as requires_action. */
export function apiStatus(p: StoredPayment): PaymentStatus {
  const challenged =
    p.threeds?.status === 'challenge_required' && (p.status === 'pending' || p.status === 'requires_action');
  return challenged ? 'requires_action' : p.status;
}

/**
 * The next action the API shows (earlier versions stored `{type: "threeds_challenge", url}`): the challenge on the
 * session's checkout page at the server's address now (`base`, links.ts), and back to that page afterwards unless
 * the session named a return_url (stored as given; the default was stored as the challenge's page).
 */
export function apiNextAction(p: StoredPayment, base: string): Payment['next_action'] {
  const next = p.next_action;
  if (!next) return null;
  const page = next.url.split('?')[0]!;
  const returnUrl = next.redirect_to_url?.return_url ?? page;
  if (!p.session_id)
    return { type: 'redirect_to_url', url: next.url, redirect_to_url: { url: next.url, return_url: returnUrl } };
  const url = hostedLinks.threeds(base, p.session_id);
  return {
    type: 'redirect_to_url',
    url,
    redirect_to_url: { url, return_url: returnUrl === page ? hostedLinks.checkout(base, p.session_id) : returnUrl },
  };
}

export class PaymentRecords {
  readonly collection: Documents<StoredPayment>;

  constructor(private readonly d: { stored: PaymentsPort; events: Events; hooks: Hooks; publicUrl: () => string }) {
    this.collection = d.stored.payments;
  }

  /**
   * The API object. `routing` and `three_d_secure` are made from what is stored; payments stored by earlier
   * versions (a 3DS payment `pending` with `{type: "threeds_challenge", url}`, wallets and bank accounts
   * without the later fields) read in today's shape.
   */
  toApi(p: StoredPayment): Payment {
    const {
      card_outcome: _c,
      ach_outcome: _a,
      settle_ms: _s,
      threeds,
      selection_reason,
      routing_profile_id,
      ...api
    } = p;
    return {
      ...api,
      status: apiStatus(p),
      wallet: api.wallet ? { type: api.wallet.type, card_network: api.wallet.card_network ?? null } : null,
      bank_account: api.bank_account
        ? {
            ...api.bank_account,
            bank_name: api.bank_account.bank_name ?? null,
            account_type: api.bank_account.account_type ?? null,
          }
        : null,
      routing: {
        attempts: p.attempts.length,
        selected_psp: p.psp,
        selection_reason: selection_reason ?? 'routing_rules',
        is_retry: p.attempts.length > 1,
      },
      routing_profile_id: routing_profile_id ?? null,
      next_action: apiNextAction(p, this.d.publicUrl()),
      three_d_secure: threeds
        ? { version: THREEDS_VERSION, authentication_status: threeds.status, eci: threeds.eci }
        : null,
    };
  }

  /** Records the event of the payment's status, if it has one (a pending ACH debit has none yet); returns the API object. */
  async recordStatus(accountId: string, p: StoredPayment, at: number, previous?: PaymentStatus): Promise<Payment> {
    const api = this.toApi(p);
    const type = PAYMENT_EVENTS[api.status];
    if (!type) return api;
    await this.d.events.record(accountId, type, api, {
      at,
      previous: previous === undefined ? undefined : { status: previous },
      payment: { session_id: p.session_id, amount: p.amount, currency: p.currency, psp: p.psp },
    });
    return api;
  }

  /**
   * Posts a capture to the ledger (journal_entry.created), called last: every capture records the payment's
   * event, then the session's, then the journal entry's — a confirm, a 3DS completion, an ACH settlement, an
   * off-session charge and a manual capture alike.
   */
  async posted(accountId: string, p: StoredPayment, amount: number, at: number): Promise<void> {
    await this.d.hooks.emit('paymentCaptured', accountId, { payment_id: p.id, amount, currency: p.currency, at });
  }

  /** An approved authorization: captured at once (automatic) or held for capture (manual). */
  authorized(p: StoredPayment): SessionStatus {
    p.next_action = null;
    if (p.capture_method === 'manual') {
      p.status = 'authorized';
      return 'processing';
    }
    p.status = 'captured';
    p.captured_amount = p.amount;
    return 'succeeded';
  }

  fail(p: StoredPayment, code: string, message: string, declineCode: string): void {
    p.status = 'failed';
    p.next_action = null;
    p.failure_code = code;
    p.failure_message = message;
    p.decline_code = declineCode;
  }

  load(accountId: string, id: string): Promise<StoredPayment> {
    return this.collection.require(accountId, id, 'payment', 'payment_id');
  }

  /** The payments of a session, oldest first. */
  ofSession(accountId: string, sessionId: string): Promise<StoredPayment[]> {
    return this.d.stored.ofSession(accountId, sessionId);
  }
}
