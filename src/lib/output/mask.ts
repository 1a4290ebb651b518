// The one masking rule for secrets shown to people or written to logs: keep a recognisable prefix and the
// last four characters, never more.
const PREFIX = /^(sk_test_|sk_live_|rk_test_|rk_live_|cs_)/;

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

/** Object fields that hold secrets; output and logs mask them wherever they appear. */
export const SECRET_FIELDS = ['client_secret', 'api_key', 'secret', 'account_number', 'routing_number', 'number', 'cvc', 'value'] as const;

/** A deep copy of `value` with every secret field masked (for CLI output). */
export function maskSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && (SECRET_FIELDS as readonly string[]).includes(k)) out[k] = /^\d+$/.test(v) ? maskNumber(v) : maskSecret(v);
      else out[k] = maskSecrets(v);
    }
    return out as T;
  }
  return value;
}
