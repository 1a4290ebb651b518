// Value rules shared by every area: currencies, metadata updates, the URLs a request gives.
import { errors } from '../errors.js';

let currencies: Set<string> | undefined;

/** ISO 4217 (as Node knows it), any case in, UPPERCASE out (docs/api.md "Conventions"). */
export function normalizeCurrency(value: string, param: string): string {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  const upper = value.toUpperCase();
  if (!currencies.has(upper))
    throw errors.parameterInvalid(param, `${JSON.stringify(value)} is not an ISO 4217 currency code`);
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

/** An explicit port in a URL's authority (after any user info), as written: digits only, leading zeros and all. */
const WRITTEN_PORT = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/\\?#]*@)?(?:\[[^\]/\\?#]*\]|[^/\\?#@[\]:]*):(\d+)(?:[/\\?#]|$)/i;

/**
 * A URL a request gives that the server will later connect to (a webhook endpoint) or send a browser or a client to
 * (success_url, cancel_url, return_url; a wallet's validation_url, which the live service fetches): absolute, `http:`
 * or `https:` (or `https:` only), a port from 1 to 65535 when it names one. The port is the one the WHATWG URL parser
 * reads (as deliveries and browsers do, so check and connection agree: `:080` is 80, `:00` is 0, a default port written
 * out is none); port 0, which the parser keeps, is refused (Node's http client would quietly use the default port).
 */
export function checkHttpUrl(value: string, param: string, schemes: 'http(s)' | 'https' = 'http(s)'): URL {
  const what = schemes === 'https' ? 'an absolute https URL' : 'an absolute http(s) URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    const written = WRITTEN_PORT.exec(value)?.[1];
    if (written !== undefined && Number(written) > 65535)
      throw errors.parameterInvalid(param, `must be ${what} with a port from 1 to 65535 (not ${written})`);
    throw errors.parameterInvalid(param, `must be ${what}`);
  }
  if (schemes === 'https' ? url.protocol !== 'https:' : url.protocol !== 'http:' && url.protocol !== 'https:')
    throw errors.parameterInvalid(param, `must be ${what}`);
  if (url.port === '0')
    throw errors.parameterInvalid(
      param,
      `must be ${what} with a port from 1 to 65535 (not ${WRITTEN_PORT.exec(value)?.[1] ?? '0'})`,
    );
  return url;
}
