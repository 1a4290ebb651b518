import type { PaymentSession } from '../../contract/sessions.js';
import { formatMoney, formatTime } from '../format.js';
import { maskSecret } from '../mask.js';
import { threedsNextLines } from './payments.js';
import type { Column, Field } from '../render.js';

export const sessionFields: Field<PaymentSession>[] = [
  { label: 'id', value: (s) => s.id },
  { label: 'status', value: (s) => s.status, status: true },
  { label: 'amount', value: (s) => formatMoney(s.amount, s.currency) },
  { label: 'capture', value: (s) => s.capture_method },
  { label: 'methods', value: (s) => s.payment_method_types.join(', ') },
  { label: 'external id', value: (s) => s.external_id },
  { label: 'description', value: (s) => s.description },
  {
    label: 'customer',
    value: (s) => [s.customer_name, s.customer_email && `<${s.customer_email}>`].filter(Boolean).join(' '),
  },
  { label: 'next action', value: (s) => threedsNextLines(s.next_action, s.id) },
  { label: 'checkout', value: (s) => s.fallback_url },
  { label: 'client secret', value: (s) => maskSecret(s.client_secret) },
  {
    label: 'canceled',
    value: (s) => (s.cancellation_reason ? `${s.cancellation_reason} at ${formatTime(s.canceled_at)}` : ''),
  },
  {
    label: 'metadata',
    value: (s) =>
      Object.entries(s.metadata ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(', '),
  },
  { label: 'created', value: (s) => formatTime(s.created_at) },
  { label: 'expires', value: (s) => formatTime(s.expires_at) },
];

export const sessionColumns: Column<PaymentSession>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'STATUS', value: (s) => s.status, status: true },
  { header: 'AMOUNT', value: (s) => formatMoney(s.amount, s.currency) },
  { header: 'EXTERNAL ID', value: (s) => s.external_id, optional: true },
  { header: 'CREATED', value: (s) => formatTime(s.created_at), optional: true },
];
