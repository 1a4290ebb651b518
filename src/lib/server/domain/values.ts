// Value rules shared by every area: currencies, metadata updates.
import { errors } from '../errors.js';

let currencies: Set<string> | undefined;

/** ISO 4217 (as Node knows it), any case in, UPPERCASE out (docs/api.md "Conventions"). */
export function normalizeCurrency(value: string, param: string): string {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  const upper = value.toUpperCase();
  if (!currencies.has(upper)) throw errors.parameterInvalid(param, `${JSON.stringify(value)} is not an ISO 4217 currency code`);
  return upper;
}

/** Stripe's rule: keys in the update replace, a key set to "" is removed. */
export function mergeMetadata(current: Record<string, string>, update: Record<string, string>): Record<string, string> {
  const out = { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (v === '') delete out[k];
    else out[k] = v;
  }
  if (Object.keys(out).length > 50) throw errors.parameterInvalid('metadata', 'must have at most 50 keys');
  return out;
}
