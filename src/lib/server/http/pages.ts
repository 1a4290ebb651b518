// HTML pages served by the local server (payments: the hosted checkout page at a session's fallback_url;
// billing: the hosted invoice page, the customer portal, the subscription checkout page). defineRoute answers
// JSON, so pages register here: GET under the API prefix, no API key (the object id in the URL is the
// capability; rate-limited per address like other unauthenticated calls), text/html, never cached, no
// external resources, not framed. Their actions are ordinary JSON routes (routes/<area>.ts).
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../../contract/common.js';
import type { Services } from '../domain/services.js';
import { ServiceError } from '../errors.js';
import { escapeHtml } from '../../format/html.js';

export interface PageContext {
  params: Record<string, string>;
  baseUrl: string;
  services: Services;
}

export interface PageSpec {
  url: string;
  /**
   * The page's HTML (200); undefined → a 404 page; a thrown ServiceError → a small error page. Run inside a read
   * (it may await the store).
   */
  handler: (ctx: PageContext) => string | undefined | Promise<string | undefined>;
}

export function errorPage(status: number, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><main><h1>${status === 404 ? 'Not found' : 'Unavailable'}</h1><p id="error">${escapeHtml(message)}</p></main></body></html>`;
}

/**
 * Only the page's own inline scripts run: each response gets a fresh nonce, in the CSP and on the template's
 * `<script>` tags. Page data never holds a `<script>` tag (HTML is escaped, JSON inside a script escapes `<`),
 * so every `<script>` in the output is the template's.
 */
const csp = (nonce: string) =>
  `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

/** Registers `pages`; `onUrl` learns each full URL (the app's 405 detection). */
export function registerPages(
  app: FastifyInstance,
  pages: PageSpec[],
  opts: { services: Services; publicUrl: () => string; onUrl?: (url: string) => void },
): void {
  for (const page of pages) {
    const url = API_PREFIX + page.url;
    opts.onUrl?.(url);
    app.route({
      method: 'GET',
      url,
      handler: async (request, reply) => {
        const nonce = randomBytes(16).toString('base64');
        reply
          .header('Cache-Control', 'no-store')
          .header('Referrer-Policy', 'no-referrer')
          .header('X-Content-Type-Options', 'nosniff')
          .header('X-Frame-Options', 'DENY')
          .header('Content-Security-Policy', csp(nonce))
          .type('text/html; charset=utf-8');
        try {
          // A page is a read: committed data only, never a write (store.read).
          const html = await opts.services.store.read(async () =>
            page.handler({
              params: request.params as Record<string, string>,
              baseUrl: opts.publicUrl(),
              services: opts.services,
            }),
          );
          if (html === undefined) return reply.code(404).send(errorPage(404, 'There is no such page.'));
          return reply.code(200).send(html.replaceAll('<script>', `<script nonce="${nonce}">`));
        } catch (err) {
          if (err instanceof ServiceError && err.status < 500)
            return reply.code(err.status).send(errorPage(err.status, err.message));
          throw err;
        }
      },
    });
  }
}
