// The processors behind one interface. The local server runs eleven simulated processors whose answers
// follow the test values of contract §7 (domain/testcards.ts); a real adapter would implement `Processor`
// the same way and replace one of them in the registry.
import { randomBase62 } from '../../ids.js';
import { PSP_IDS, type PspId } from '../../../contract/payments.js';
import type { PaymentMethodType } from '../../../contract/sessions.js';
import type { CardOutcome } from '../testcards.js';
import type { ScopedStore } from '../../store/scoped.js';
import type { ChangeWatch } from '../../store/changes.js';
import type { ProcessorMarksPort, ProcessorStatus } from './persistence.js';

/** What the engine asks a processor to do. Never carries raw card or account numbers. */
export interface ProcessorRequest {
  amount: number;
  currency: string;
  method: PaymentMethodType;
  capture: 'automatic' | 'manual';
  /** Test behaviour of the card (a simulation hint from the vault / test token; a real adapter ignores it). */
  card?: { outcome: CardOutcome };
  wallet_token?: string;
  /** 0 for the first processor tried, 1 for the second … */
  attempt_index: number;
  /** The cardholder completed a 3DS challenge for this payment. */
  threeds?: 'authenticated' | 'failed';
}

export type ProcessorResult =
  | { kind: 'approved'; transaction_id: string }
  | { kind: 'requires_3ds'; transaction_id: string }
  /** hard decline: never retried */
  | { kind: 'declined'; code: string; message: string }
  /** retryable: the next candidate is tried */
  | { kind: 'error'; code: string; message: string };

export interface Processor {
  readonly id: string;
  /** Card and wallet authorizations; ACH debits are accepted here and settle later (payments.ts's DueWork). */
  authorize(req: ProcessorRequest): ProcessorResult;
}

const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  incorrect_cvc: "Your card's security code is incorrect.",
  lost_card: 'Your card was declined.',
  stolen_card: 'Your card was declined.',
  wallet_declined: 'The wallet payment was declined.',
  authentication_failed: 'The cardholder failed 3D Secure authentication.',
};
export const declineMessage = (code: string) => DECLINE_MESSAGES[code] ?? 'The payment was declined.';

/** A processor of the local server: deterministic answers from the test values. */
export class SimulatedProcessor implements Processor {
  constructor(readonly id: string) {}

  private txn(): string {
    return `${this.id}_${randomBase62(20)}`;
  }

  authorize(req: ProcessorRequest): ProcessorResult {
    if (req.method === 'card') {
      const o = req.card?.outcome ?? { kind: 'success' };
      switch (o.kind) {
        case 'success':
          return { kind: 'approved', transaction_id: this.txn() };
        case 'decline':
          return { kind: 'declined', code: o.code, message: declineMessage(o.code) };
        case 'processing_error':
          return { kind: 'error', code: 'processing_error', message: 'An error occurred while processing the card.' };
        case 'processor_unavailable':
          return req.attempt_index === 0
            ? { kind: 'error', code: 'processor_unavailable', message: 'The processor did not answer.' }
            : { kind: 'approved', transaction_id: this.txn() };
        case 'threeds':
          if (req.threeds === undefined) return { kind: 'requires_3ds', transaction_id: this.txn() };
          if (req.threeds === 'authenticated' && o.then === 'success')
            return { kind: 'approved', transaction_id: this.txn() };
          return { kind: 'declined', code: 'authentication_failed', message: declineMessage('authentication_failed') };
      }
    }
    if (req.method === 'bank_account') return { kind: 'approved', transaction_id: this.txn() };
    // wallets: any non-empty token succeeds; `wallet_declined` declines
    if (req.wallet_token === 'wallet_declined')
      return { kind: 'declined', code: 'card_declined', message: declineMessage('wallet_declined') };
    return { kind: 'approved', transaction_id: this.txn() };
  }
}

/**
 * The processors, and which of them are down for each account. A process's `--psp-down` (its start option) is each
 * account's default; an account's own marks, stored with its data, win over it and are the same through every
 * process of a shared database. The marks are kept in memory (routing asks on every payment) and follow the store as
 * the accounts' clocks do (clock.ts): a mark is noted in its transaction's frame and kept once that has committed, and
 * all are read again when the store's change mark moves.
 */
export class ProcessorRegistry {
  private readonly processors = new Map<string, Processor>();
  private readonly downAtStart = new Set<string>();
  /** The committed marks, by account, then processor. */
  private marks = new Map<string, Map<string, ProcessorStatus>>();
  /** Moves at each committed mark: a re-read that started before it does not replace what it wrote. */
  private writes = 0;

  constructor(
    downAtStart: string[],
    private readonly kept: { store: ScopedStore; stored: ProcessorMarksPort; changes: ChangeWatch },
  ) {
    for (const id of PSP_IDS) this.processors.set(id, new SimulatedProcessor(id));
    for (const id of downAtStart) {
      if (!this.processors.has(id)) throw new Error(`Unknown processor "${id}" (known: ${PSP_IDS.join(', ')}).`);
      this.downAtStart.add(id);
    }
    kept.changes.onChange(() => this.reload());
  }

  /** Reads every account's marks (before the first request). */
  async load(): Promise<void> {
    this.marks = await this.stored();
  }

  /** The change mark moved: every mark again. Not when this process committed one meanwhile: the next change reads. */
  private async reload(): Promise<void> {
    const writes = this.writes;
    const marks = await this.stored();
    if (this.writes === writes) this.marks = marks;
  }

  private async stored(): Promise<Map<string, Map<string, ProcessorStatus>>> {
    const marks = new Map<string, Map<string, ProcessorStatus>>();
    for (const m of await this.kept.stored.processorMarks()) {
      let of = marks.get(m.account_id);
      if (!of) marks.set(m.account_id, (of = new Map()));
      of.set(m.psp, m.status);
    }
    return marks;
  }

  ids(): string[] {
    return [...this.processors.keys()];
  }

  has(id: string): boolean {
    return this.processors.has(id);
  }

  get(id: string): Processor {
    const p = this.processors.get(id);
    if (!p) throw new Error(`Unknown processor ${id}`);
    return p;
  }

  /** Replaces a processor (a real adapter, or a test double). */
  register(processor: Processor): void {
    this.processors.set(processor.id, processor);
  }

  /** Whether the processor is down for the account, as the caller's transaction sees it. */
  isDown(accountId: string, id: string): boolean {
    const mark =
      this.kept.store.frame()?.get<ProcessorStatus>(markKey(accountId, id)) ?? this.marks.get(accountId)?.get(id);
    return mark === undefined ? this.downAtStart.has(id) : mark === 'down';
  }

  /** Marks the processor down (or up) for the account, in the caller's transaction. */
  async setDown(accountId: string, id: PspId | string, down: boolean): Promise<void> {
    const status: ProcessorStatus = down ? 'down' : 'up';
    const committed = () => {
      let of = this.marks.get(accountId);
      if (!of) this.marks.set(accountId, (of = new Map()));
      of.set(id, status);
      this.writes++;
    };
    await this.kept.stored.markProcessor(accountId, id, status);
    const frame = this.kept.store.frame();
    if (frame) {
      frame.set(markKey(accountId, id), status);
      frame.afterCommit(committed);
    } else committed();
  }

  /** Each processor, up or down for the account. */
  state(accountId: string): { id: string; status: ProcessorStatus }[] {
    return this.ids().map((id) => ({ id, status: this.isDown(accountId, id) ? 'down' : 'up' }));
  }
}

/** The key of an account's mark of a processor in a transaction's frame. */
const markKey = (accountId: string, psp: string) => `psp ${accountId} ${psp}`;
