// Off-session charges (billing charges a customer's default payment method through this). The payments
// area implements it; billing only depends on this interface.

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
  /** Runs synchronously inside the caller's transaction. */
  charge(accountId: string, request: ChargeRequest, now: number): ChargeResult;
}
