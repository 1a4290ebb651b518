// The one masking rule for secrets shown to people or written to logs: keep a recognisable prefix and the
// last four characters, never more.
const PREFIX = /^(sk_test_|sk_live_|rk_test_|rk_live_|cs_|whsec_)/;

/** `sk_test_abc…wxyz` → `sk_test_…wxyz`; `cs_…` likewise; anything else → `…wxyz`. */
export function maskSecret(value: string | null | undefined): string {
  if (!value) return '';
  const prefix = PREFIX.exec(value)?.[1] ?? '';
  if (value.startsWith('…', prefix.length)) return value; // already masked: masking twice must not lose the last four
  const tail = value.length - prefix.length > 8 ? value.slice(-4) : '';
  return `${prefix}…${tail}`;
}

/** Digits of a card or account number: only the last four survive. */
export const maskNumber = (value: string): string => `••••${value.slice(-4)}`;

/**
 * Object fields that hold secrets wherever they appear; output masks them. (The API never returns raw card,
 * bank-account or vault values at all; a field *name* such as `number` or `value` is not a secret by itself —
 * invoice numbers, ledger account numbers and tax-id values are ordinary data.)
 */
export const SECRET_FIELDS = ['client_secret', 'api_key', 'secret', 'cvc'] as const;

/** A card number (13–19 digits, Luhn-valid) that slipped into any field: masked too, as defence in depth. */
function looksLikePan(v: string): boolean {
  if (!/^\d{13,19}$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    let d = Number(v[v.length - 1 - i]);
    if (i % 2 === 1 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

/** A deep copy of `value` with every secret field masked (for CLI output). */
export function maskSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && (SECRET_FIELDS as readonly string[]).includes(k)) out[k] = maskSecret(v);
      else if (typeof v === 'string' && looksLikePan(v)) out[k] = maskNumber(v);
      else out[k] = maskSecrets(v);
    }
    return out as T;
  }
  return value;
}
