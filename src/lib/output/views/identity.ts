import type { IdentityToken, KycVerification } from '../../contract/identity.js';
import { formatTime } from '../format.js';
import type { Column, Field } from '../render.js';

export const tokenFields: Field<IdentityToken>[] = [
  { label: 'token', value: (t) => t.token_id },
  { label: 'type', value: (t) => t.type },
  { label: 'masked value', value: (t) => t.masked_value },
  { label: 'field name', value: (t) => t.field_name },
  { label: 'environment', value: (t) => t.environment },
  { label: 'created', value: (t) => formatTime(t.created_at) },
];

export const tokenColumns: Column<IdentityToken>[] = [
  { header: 'TOKEN', value: (t) => t.token_id },
  { header: 'TYPE', value: (t) => t.type },
  { header: 'MASKED', value: (t) => t.masked_value },
  { header: 'FIELD', value: (t) => t.field_name, shrink: true, optional: true },
  { header: 'CREATED', value: (t) => formatTime(t.created_at), optional: true },
];

export const kycFields: Field<KycVerification>[] = [
  { label: 'id', value: (k) => k.id },
  { label: 'status', value: (k) => k.status, status: true },
  { label: 'reason', value: (k) => k.status_reason },
  { label: 'customer', value: (k) => k.customer_id },
  { label: 'level', value: (k) => k.verification_level },
  { label: 'risk score', value: (k) => k.risk_score },
  { label: 'tokens', value: (k) => k.identity_token_ids.join(', ') },
  {
    label: 'checks',
    value: (k) =>
      k.checks.map(
        (c) =>
          `${c.check_type}: ${c.status}${c.status_reason ? ` (${c.status_reason})` : ''}${c.confidence_score !== null ? ` confidence ${c.confidence_score}` : ''}`,
      ),
  },
  { label: 'provider', value: (k) => k.provider },
  { label: 'created', value: (k) => formatTime(k.created_at) },
  { label: 'submitted', value: (k) => formatTime(k.submitted_at) },
  { label: 'completed', value: (k) => formatTime(k.completed_at) },
];

export const kycColumns: Column<KycVerification>[] = [
  { header: 'ID', value: (k) => k.id },
  { header: 'STATUS', value: (k) => k.status, status: true },
  { header: 'LEVEL', value: (k) => k.verification_level },
  { header: 'CUSTOMER', value: (k) => k.customer_id, optional: true },
  { header: 'RISK', value: (k) => k.risk_score },
  { header: 'CREATED', value: (k) => formatTime(k.created_at), optional: true },
];
