// Browsers on other origins: the live service's browser SDK runs in a merchant's page and calls the API with the
// session's client secret (or a test page with a key) — never with cookies — so every answer allows any origin,
// and a preflight (OPTIONS) of a known path answers 204 with the methods of that path and the request headers
// the API reads. Nothing else changes: authentication is still the bearer credential.
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../../contract/common.js';
import { errors } from '../errors.js';
import { sendError, type KnownPaths } from './replies.js';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key';
const EXPOSED_HEADERS =
  'Request-Id, Idempotent-Replayed, Original-Request, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';

export function allowBrowsers(app: FastifyInstance, known: KnownPaths): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    done(null, payload);
  });
  app.route({
    method: 'OPTIONS',
    url: `${API_PREFIX}/*`,
    handler: (request, reply) => {
      const path = request.url.split('?')[0]!;
      const allow = known.allowed(path);
      if (!allow.length) return sendError(request, reply, errors.routeNotFound('OPTIONS', path));
      return reply
        .code(204)
        .header('Access-Control-Allow-Methods', allow.join(', '))
        .header('Access-Control-Allow-Headers', ALLOWED_HEADERS)
        .header('Access-Control-Max-Age', '600')
        .send();
    },
  });
}
