// Off-session charges (billing charges a customer's default payment method through this). The payments
// area implements it; billing only depends on this interface.
import { MAX_AMOUNT } from '../../contract/numbers.js';

export interface ChargeRequest {
  amount: number;
  /** UPPERCASE ISO 4217 */
  currency: string;
  /** A card token (tok_…) or another saved payment-method reference. */
  payment_method: string;
  description?: string;
  metadata?: Record<string, string>;
}

export type ChargeResult =
  | { status: 'succeeded'; payment_id: string | null }
  | { status: 'failed'; payment_id: string | null; code: string; decline_code?: string; message: string };

export interface Charger {
  /** Runs inside the caller's transaction. */
  charge(accountId: string, request: ChargeRequest, now: number): Promise<ChargeResult>;
}

/**
 * Why `amount` cannot be charged (more than a payment may carry: MAX_AMOUNT, as create-session takes), or
 * undefined when it can.
 */
export function tooLargeToCharge(amount: number): string | undefined {
  if (amount <= MAX_AMOUNT) return undefined;
  return `The amount due (${amount}) is more than the largest payment amount (${MAX_AMOUNT}), so it cannot be charged in one payment; lower it, or record it as paid out of band.`;
}
