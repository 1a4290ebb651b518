// Cross-area events inside one transaction. Areas subscribe in their factory (e.g. the ledger posts
// captured and refunded payments); the area that owns the event awaits `emit`. Listeners run one after
// another, each awaited, in the caller's transaction, so a failure rolls everything back together.
import type { LatestAttempt, NextAction } from '../../contract/sessions.js';

export interface PaymentMoneyEvent {
  payment_id: string;
  amount: number;
  /** UPPERCASE ISO 4217 */
  currency: string;
  /** Unix ms on the account clock */
  at: number;
}

export interface SessionEvent {
  session_id: string;
  /** Unix ms on the account clock */
  at: number;
}

/** What the payments area reports about a session's latest payment. */
export interface SessionPayment {
  latest_attempt: LatestAttempt;
  next_action: NextAction | null;
}

/** A question rather than news: the listener answers by setting `payment` (it stays null when none does). */
export interface SessionPaymentQuery {
  session_id: string;
  payment: SessionPayment | null;
}

/**
 * Sessions asks, before it expires many sessions at once, which of them another area must see one at a time: a
 * listener adds those to `one_by_one`. Those expire as one session expires ('sessionCanceling', then the event with
 * 'sessionPayment''s answer); the others expire with neither asked (nothing to cancel with them, no payment to show).
 */
export interface SessionsExpiring {
  session_ids: readonly string[];
  one_by_one: Set<string>;
}

export interface HookEvents {
  /** Money was captured on a payment (automatic capture, manual capture, ACH settlement). */
  paymentCaptured: PaymentMoneyEvent;
  /** Money was refunded on a payment. */
  paymentRefunded: PaymentMoneyEvent;
  /** A write made something due at once (a revived subscription's missed renewal): the scheduler runs it
   * right after the write has committed, before the write is answered (domain/due.ts). */
  dueNow: Record<string, never>;
  /** A payment session is being canceled or is expiring, before it becomes canceled (payments voids its
   * payment; a listener may throw to refuse). */
  sessionCanceling: SessionEvent;
  /** Sessions is about to expire many sessions at once (SessionsExpiring). */
  sessionsExpiring: SessionsExpiring;
  /** A payment session moved to succeeded (billing completes its checkout session). */
  sessionSucceeded: SessionEvent;
  /** Sessions asks, for a session's API object, for its latest payment (`latest_attempt`, `next_action`):
   * the payments area answers. */
  sessionPayment: SessionPaymentQuery;
}

/** A listener may await the store: `emit` awaits each one before the next starts. */
type Listener<K extends keyof HookEvents> = (accountId: string, event: HookEvents[K]) => void | Promise<void>;

export class Hooks {
  private readonly listeners: { [K in keyof HookEvents]?: Listener<K>[] } = {};

  on<K extends keyof HookEvents>(name: K, listener: Listener<K>): void {
    ((this.listeners[name] ??= []) as Listener<K>[]).push(listener);
  }

  /** Runs the listeners in the order they subscribed, each after the previous one settled; a throw stops them. */
  async emit<K extends keyof HookEvents>(name: K, accountId: string, event: HookEvents[K]): Promise<void> {
    for (const l of (this.listeners[name] ?? []) as Listener<K>[]) await l(accountId, event);
  }
}
