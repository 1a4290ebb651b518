// The test values of docs/api.md "Payments" as data: what the local processors do with each card token / number.
// Shared by the payments service (payments/payments.ts), the test vault, billing charges and `GET /test-cards`.

export type CardOutcome =
  /** `refunds: 'fail'`: the payment succeeds; the processor refuses its refunds (refund.failed). */
  | { kind: 'success'; refunds?: 'fail' }
  | {
      kind: 'decline';
      code: 'card_declined' | 'insufficient_funds' | 'expired_card' | 'incorrect_cvc' | 'lost_card' | 'stolen_card';
    }
  /** processing_error on every processor (failover exhausts) */
  | { kind: 'processing_error' }
  /** the first processor fails retryably, the next succeeds */
  | { kind: 'processor_unavailable' }
  | { kind: 'threeds'; then: 'success' | 'authentication_failed' };

export interface TestCard {
  token: string;
  number?: string;
  brand: 'visa' | 'mastercard' | 'amex';
  outcome: CardOutcome;
  description: string;
}

export const TEST_CARDS: TestCard[] = [
  {
    token: 'tok_visa',
    number: '4242424242424242',
    brand: 'visa',
    outcome: { kind: 'success' },
    description: 'Succeeds',
  },
  {
    token: 'tok_mastercard',
    number: '5555555555554444',
    brand: 'mastercard',
    outcome: { kind: 'success' },
    description: 'Succeeds',
  },
  {
    token: 'tok_amex',
    number: '378282246310005',
    brand: 'amex',
    outcome: { kind: 'success' },
    description: 'Succeeds',
  },
  {
    token: 'tok_chargeDeclined',
    number: '4000000000000002',
    brand: 'visa',
    outcome: { kind: 'decline', code: 'card_declined' },
    description: 'Declined: card_declined',
  },
  {
    token: 'tok_chargeDeclinedInsufficientFunds',
    number: '4000000000009995',
    brand: 'visa',
    outcome: { kind: 'decline', code: 'insufficient_funds' },
    description: 'Declined: insufficient_funds',
  },
  {
    token: 'tok_chargeDeclinedExpiredCard',
    number: '4000000000000069',
    brand: 'visa',
    outcome: { kind: 'decline', code: 'expired_card' },
    description: 'Declined: expired_card',
  },
  {
    token: 'tok_chargeDeclinedIncorrectCvc',
    number: '4000000000000127',
    brand: 'visa',
    outcome: { kind: 'decline', code: 'incorrect_cvc' },
    description: 'Declined: incorrect_cvc',
  },
  {
    token: 'tok_chargeDeclinedProcessingError',
    number: '4000000000000119',
    brand: 'visa',
    outcome: { kind: 'processing_error' },
    description: 'processing_error on every processor (failover exhausts)',
  },
  // Stripe's "refund fails" test card: the charge succeeds, every refund of it fails.
  {
    token: 'tok_refundFail',
    number: '4000000000005126',
    brand: 'visa',
    outcome: { kind: 'success', refunds: 'fail' },
    description: 'Succeeds; its refunds fail (refund.failed)',
  },
  {
    token: 'tok_processorUnavailable',
    brand: 'visa',
    outcome: { kind: 'processor_unavailable' },
    description: 'First processor fails retryably, the next succeeds',
  },
  {
    token: 'tok_threeDSecureRequired',
    number: '4000000000003220',
    brand: 'visa',
    outcome: { kind: 'threeds', then: 'success' },
    description: '3DS challenge, then success',
  },
  {
    token: 'tok_threeDSecureFail',
    number: '4000008400001629',
    brand: 'visa',
    outcome: { kind: 'threeds', then: 'authentication_failed' },
    description: '3DS challenge, then authentication_failed',
  },
];

export const testCardByToken = (token: string) => TEST_CARDS.find((c) => c.token === token);
export const testCardByNumber = (number: string) => TEST_CARDS.find((c) => c.number === number);

/** Luhn check for card numbers entered in the test vault. */
export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ACH test values (contract §7): routing 110000000. */
export const ACH_TEST = {
  routing: '110000000',
  settles: '000123456789',
  insufficientFunds: '000222222227',
  rejectedAtCreation: '000111111116',
} as const;
