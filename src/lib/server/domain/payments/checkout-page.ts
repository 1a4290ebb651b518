// The hosted checkout page (a session's fallback_url). Filled in below.
import type { Services } from '../../services.js';

export function checkoutPage(_services: Services, _sessionId: string, _baseUrl: string): string | undefined {
  return undefined;
}
