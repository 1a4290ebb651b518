// Base URLs: the one check of where the client may send requests (and keys).
import { API_PREFIX, isLoopbackHostname } from '../contract/prefix.js';
import { InvalidBaseUrlError } from './errors.js';

/** The path the test-mode server serves the API under (src/lib/contract/prefix.ts decides it). */
export const API_BASE_PATH = API_PREFIX;

/**
 * A base URL the client will send keys to: http or https, a host, no credentials, query or fragment. Its path
 * (`/functions/v1`, or none) is the prefix every request path is appended to. Throws InvalidBaseUrlError.
 */
export function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InvalidBaseUrlError(baseUrl, 'it is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidBaseUrlError(baseUrl, `the scheme must be http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (!url.hostname) throw new InvalidBaseUrlError(baseUrl, 'it has no host');
  if (url.username || url.password)
    throw new InvalidBaseUrlError(baseUrl, 'credentials in the URL are not allowed (use --api-key)');
  if (url.search || url.hash) throw new InvalidBaseUrlError(baseUrl, 'it must not have a query string or fragment');
  return url;
}

/** A host on this machine (loopback names and addresses, `*.localhost`): where the local test-mode server runs. */
export const isLocalHost = (hostname: string): boolean =>
  isLoopbackHostname(hostname) || hostname === '0.0.0.0' || hostname.endsWith('.localhost');
