// Who is calling: the bearer credential of a request (an API key, or a payment session's client secret on the
// routes that take one) turned into the account it acts for, or the 401 that says why not.
import type { FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { Services } from '../domain/services.js';
import type { RouteSpec } from './route.js';

export interface Caller {
  accountId: string;
  /** The API key that authenticated the request (for audit trails), when one did. */
  keyId?: string;
  /** The payment session whose client secret authenticated the request, when one did. */
  sessionId?: string;
  /** The rate-limit bucket the request counts against. */
  rateKey: string;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The address bucket of a request no credential identifies: `public` for the routes that take none (health,
 * the OpenAPI document, hosted pages), `guest` for everything else (failed authentication, unknown routes).
 */
export const addressBucket = (request: FastifyRequest, bucket: 'public' | 'guest' = 'public'): string =>
  bucket === 'public' ? `ip:${request.ip}` : `guest:${request.ip}`;

/**
 * The bearer credential; two Authorization headers are refused rather than one of them chosen (Node keeps
 * only the first, and a proxy in front may have read the other).
 */
function bearer(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') seen++;
  if (seen > 1)
    throw errors.authentication(
      'invalid_api_key',
      'The request has more than one Authorization header; send exactly one.',
    );
  const h = request.headers.authorization;
  if (!h) return undefined;
  return BEARER.exec(h)?.[1] ?? h.trim();
}

/** The caller the request's credential stands for, or throws the 401. */
export async function identify(request: FastifyRequest, spec: RouteSpec, services: Services): Promise<Caller> {
  const token = bearer(request);
  const useSecret =
    spec.auth === 'client_secret' || (spec.auth === 'api_key_or_client_secret' && token?.startsWith('cs_'));
  if (!useSecret) {
    const auth = await services.accounts.authenticate(token);
    return { accountId: auth.accountId, keyId: auth.keyId, rateKey: `key:${auth.keyId}` };
  }
  if (!token)
    throw errors.authentication(
      'missing_client_secret',
      "This operation is authenticated with the payment session's client_secret as the bearer credential.",
    );
  // An API key's authentication looks for other connections' writes (ChangeWatch); with an engine that runs
  // transactions at once (several server processes on one database) a client secret's does too: its session's clock
  // may have been advanced by another process. One process on SQLite does not pay for it here (a statement).
  if (!services.store.serial) {
    const looking = services.changes.check();
    if (looking) await looking;
  }
  // Without a session in the path, the secret names its session (Sessions.authenticateSecret).
  const pathId = (request.params as Record<string, string | undefined>).session_id;
  const auth = token.startsWith('cs_') ? await services.sessions.authenticateSecret(pathId, token) : undefined;
  if (!auth || auth.expiresMs <= services.clock.now(auth.accountId)) {
    throw errors.authentication(
      'invalid_client_secret',
      'The client secret is not valid for this payment session (wrong session, wrong secret, or the session expired).',
    );
  }
  return { accountId: auth.accountId, sessionId: auth.sessionId, rateKey: `cs:${auth.sessionId}` };
}
