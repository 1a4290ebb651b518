// A minimal mechanism for HTML pages served by the local server (hosted invoice page, customer portal).
// Pages are GETs under the API prefix that answer text/html; they take no API key (the object id in the URL
// is the capability). Their actions are ordinary JSON routes with auth 'none' (routes/<area>.ts).
// NOTE: billing added this for its pages; the payments area may bring a shared mechanism — merge then.
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../../contract/common.js';
import type { Services } from '../services.js';
import { ServiceError } from '../errors.js';

export interface PageContext {
  params: Record<string, string>;
  baseUrl: string;
  services: Services;
}

export interface PageSpec {
  url: string;
  /** Returns the page's HTML (status 200), or throws a ServiceError (rendered as a small error page). */
  handler: (ctx: PageContext) => string;
}

export const escapeHtml = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function errorPage(status: number, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><main><h1>${status === 404 ? 'Not found' : 'Unavailable'}</h1><p id="error">${escapeHtml(message)}</p></main></body></html>`;
}

export function registerPages(app: FastifyInstance, pages: PageSpec[], opts: { services: Services; publicUrl: () => string }): void {
  for (const page of pages) {
    app.route({
      method: 'GET',
      url: API_PREFIX + page.url,
      handler: (request, reply) => {
        reply.header('Cache-Control', 'no-store').header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'no-referrer');
        try {
          const html = opts.services.store.tx(() => page.handler({ params: request.params as Record<string, string>, baseUrl: opts.publicUrl(), services: opts.services }));
          return reply.code(200).type('text/html; charset=utf-8').send(html);
        } catch (err) {
          if (err instanceof ServiceError && err.status < 500) return reply.code(err.status).type('text/html; charset=utf-8').send(errorPage(err.status, err.message));
          throw err;
        }
      },
    });
  }
}
