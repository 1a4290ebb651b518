import type {
  BankAccount,
  Cryptogram,
  NetworkToken,
  Payment,
  ThreeDSResult,
  VaultToken,
} from '../../contract/payments.js';
import type { NextAction } from '../../contract/sessions.js';
import { formatMoney, formatTime } from '../format.js';
import type { Column, Field } from '../render.js';

/** The command that completes a session's 3D Secure challenge, as the hosted page does. */
export const threedsCommand = (sessionId: string) => `payorch threeds complete ${sessionId}`;

/** A payment waiting for its 3D Secure challenge: the page that completes it, or the command that does the same. */
export function threedsNextLines(next: NextAction | null | undefined, sessionId: string | null): string[] {
  if (!next) return [];
  return [`3D Secure challenge: open ${next.url}`, ...(sessionId ? [`or run \`${threedsCommand(sessionId)}\``] : [])];
}

const method = (p: Payment): string => {
  if (p.card)
    return `${p.card.brand} ••••${p.card.last4} (${String(p.card.exp_month).padStart(2, '0')}/${p.card.exp_year})`;
  if (p.bank_account) return `ACH ••••${p.bank_account.last4} (${p.bank_account.account_holder_name})`;
  return p.payment_method_type;
};

export const paymentFields: Field<Payment>[] = [
  { label: 'id', value: (p) => p.id },
  { label: 'status', value: (p) => p.status, status: true },
  { label: 'amount', value: (p) => formatMoney(p.amount, p.currency) },
  { label: 'captured', value: (p) => (p.captured_amount ? formatMoney(p.captured_amount, p.currency) : '') },
  { label: 'refunded', value: (p) => (p.refunded_amount ? formatMoney(p.refunded_amount, p.currency) : '') },
  { label: 'session', value: (p) => p.session_id },
  { label: 'method', value: method },
  { label: 'capture', value: (p) => p.capture_method },
  { label: 'processor', value: (p) => (p.psp ? `${p.psp} ${p.psp_transaction_id ?? ''}`.trim() : '') },
  {
    label: 'attempts',
    value: (p) => p.attempts.map((a) => `${a.psp}:${a.status}${a.code ? `(${a.code})` : ''}`).join(' → '),
  },
  { label: 'next action', value: (p) => threedsNextLines(p.next_action, p.session_id) },
  {
    label: 'failure',
    value: (p) =>
      p.failure_code
        ? `${p.failure_code}${p.decline_code && p.decline_code !== p.failure_code ? ` / ${p.decline_code}` : ''}: ${p.failure_message ?? ''}`
        : '',
  },
  { label: 'settles', value: (p) => formatTime(p.settles_at) },
  { label: 'created', value: (p) => formatTime(p.created_at) },
];

export const paymentColumns: Column<Payment>[] = [
  { header: 'ID', value: (p) => p.id },
  { header: 'STATUS', value: (p) => p.status, status: true },
  { header: 'AMOUNT', value: (p) => formatMoney(p.amount, p.currency) },
  { header: 'METHOD', value: (p) => p.payment_method_type, optional: true },
  { header: 'PSP', value: (p) => p.psp, optional: true },
  { header: 'CREATED', value: (p) => formatTime(p.created_at), optional: true },
];

export const threedsFields: Field<ThreeDSResult>[] = [
  { label: 'session', value: (t) => t.session_id },
  { label: 'payment', value: (t) => t.payment_id },
  { label: 'status', value: (t) => t.status, status: true },
  { label: 'liability shift', value: (t) => String(t.liability_shift) },
  { label: 'eci', value: (t) => t.eci },
  { label: 'ds transaction', value: (t) => t.ds_transaction_id },
  { label: 'payment status', value: (t) => t.payment_status, status: true },
];

export const bankAccountFields: Field<BankAccount>[] = [
  { label: 'id', value: (b) => b.id },
  { label: 'status', value: (b) => b.verification_status, status: true },
  { label: 'holder', value: (b) => b.holder_name },
  { label: 'account', value: (b) => `${b.account_type} ••••${b.last4}` },
  { label: 'routing', value: (b) => `••••${b.routing_last4}` },
  { label: 'bank', value: (b) => b.bank_name },
  { label: 'customer', value: (b) => b.customer_id },
  { label: 'default', value: (b) => (b.is_default ? 'yes' : '') },
  {
    label: 'micro-deposits',
    value: (b) =>
      b.microdeposits
        ? `${b.microdeposits.attempts_remaining} attempts left, expire ${formatTime(b.microdeposits.expires_at)}`
        : '',
  },
  { label: 'country', value: (b) => `${b.country} ${b.currency}` },
  { label: 'created', value: (b) => formatTime(b.created) },
];

export const bankAccountColumns: Column<BankAccount>[] = [
  { header: 'ID', value: (b) => b.id },
  { header: 'STATUS', value: (b) => b.verification_status, status: true },
  { header: 'HOLDER', value: (b) => b.holder_name, shrink: true },
  { header: 'ACCOUNT', value: (b) => `••••${b.last4}` },
  { header: 'CUSTOMER', value: (b) => b.customer_id, optional: true },
  { header: 'CREATED', value: (b) => formatTime(b.created), optional: true },
];

export const networkTokenFields: Field<NetworkToken>[] = [
  { label: 'id', value: (t) => t.id },
  { label: 'status', value: (t) => t.status, status: true },
  {
    label: 'card',
    value: (t) =>
      `${t.card.brand} ••••${t.card.last4} (${String(t.card.exp_month).padStart(2, '0')}/${t.card.exp_year})`,
  },
  { label: 'token last4', value: (t) => t.network_token_last4 },
  { label: 'created', value: (t) => formatTime(t.created_at) },
];

export const cryptogramFields: Field<Cryptogram>[] = [
  { label: 'network token', value: (c) => c.network_token_id },
  { label: 'cryptogram', value: (c) => c.cryptogram },
  { label: 'eci', value: (c) => c.eci },
  { label: 'expires', value: (c) => formatTime(c.expires_at) },
];

export const vaultTokenFields: Field<VaultToken>[] = [
  { label: 'token', value: (t) => t.token_id },
  { label: 'card', value: (t) => `${t.card.brand} ••••${t.card.last4}` },
];
