// The processors behind one interface. The local server runs eleven simulated processors whose answers
// follow the test values of contract §7 (domain/testcards.ts); a real adapter would implement `Processor`
// the same way and replace one of them in the registry.
import { randomBase62 } from '../../ids.js';
import { PSP_IDS, type PspId } from '../../../contract/payments.js';
import type { PaymentMethodType } from '../../../contract/sessions.js';
import type { CardOutcome } from '../testcards.js';

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
  /** Card and wallet authorizations; ACH debits are accepted here and settle later (engine's DueWork). */
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

/** The processors and which of them are down (in memory: `--psp-down` at start, the test-helpers endpoint at runtime). */
export class ProcessorRegistry {
  private readonly processors = new Map<string, Processor>();
  private readonly down = new Set<string>();

  constructor(downAtStart: string[] = []) {
    for (const id of PSP_IDS) this.processors.set(id, new SimulatedProcessor(id));
    for (const id of downAtStart) {
      if (!this.processors.has(id)) throw new Error(`Unknown processor "${id}" (known: ${PSP_IDS.join(', ')}).`);
      this.down.add(id);
    }
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

  isDown(id: string): boolean {
    return this.down.has(id);
  }

  setDown(id: PspId | string, down: boolean): void {
    if (down) this.down.add(id);
    else this.down.delete(id);
  }

  state(): { id: string; status: 'up' | 'down' }[] {
    return this.ids().map((id) => ({ id, status: this.down.has(id) ? 'down' : 'up' }));
  }
}
