// The fastify application: every route declared with defineRoute goes through one pipeline —
// request id → auth → rate limits → JSON parsing → schema validation → idempotency + transaction → handler —
// and every failure leaves as the contract's error body.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { FastifyValidationResult } from "fastify/types/schema.js";
import FindMyWay from 'find-my-way';
import type { Logger } from 'pino';
import type { AccessLog } from './log.js';
import { API_PREFIX } from '../contract/common.js';
import type { Services } from './services.js';
import { errors, ServiceError } from './errors.js';
import { newRequestId } from './ids.js';
import { compileValidator, validationError } from './http/validation.js';
import { fingerprint, IdempotencyStore, isSavedOutcome } from './http/idempotency.js';
import { Outcome, type RouteContext, type RouteSpec } from './http/route.js';
import { allRoutes } from './routes/index.js';
import { paymentsPages } from './routes/payments.js';
import { registerPages } from './http/pages.js';
import { billingPages } from './pages/billing.js';

export const BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  services: Services;
  logger?: Logger;
  /** Where the one line per request goes (log.ts: unredacted fixed fields); none when absent. */
  accessLog?: AccessLog;
  /** The API's public base URL (…/functions/v1), used for links such as a session's fallback_url. */
  publicUrl: () => string;
  version: string;
}

interface RequestState {
  accountId: string;
  /** The API key that authenticated the request (for audit trails), when one did. */
  keyId?: string;
  /** The payment session whose client secret authenticated the request, when one did. */
  sessionId?: string;
  rateKey: string;
  admitted: boolean;
  started: bigint;
}

declare module 'fastify' {
  interface FastifyRequest {
    payorch?: RequestState;
  }
  interface FastifyContextConfig {
    spec?: RouteSpec;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const;

function bearer(request: FastifyRequest): string | undefined {
  const h = request.headers.authorization;
  if (!h) return undefined;
  return BEARER.exec(h)?.[1] ?? h.trim();
}

/** Maps anything thrown in the pipeline to the contract's error. */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as { code?: string; statusCode?: number; validation?: unknown; validationContext?: string; message?: string };
  if (e && Array.isArray(e.validation)) return validationError(e.validation, e.validationContext);
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(BODY_LIMIT);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType('');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.invalidRequest('invalid_content_length', 'The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidJson('the body is empty');
  }
  if (e?.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return errors.invalidRequest('invalid_request', e.message ?? 'The request could not be read.');
  }
  return errors.internal();
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { services } = opts;
  const { limiter, idempotency, store } = services;
  const log = opts.logger;
  const accessLog = opts.accessLog;
  const app = Fastify({
    logger: false, // one line per request is written below (log.ts, AccessLog)
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    // Ids are validated by the routes' schemas (up to 255 characters); find-my-way's default of 100 would answer
    // longer ones outside the pipeline.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 2048 },
    // A URL that cannot be decoded (`%zz`), or a path parameter over the router's limit: the contract's error body.
    frameworkErrors: (err, request, generic) => {
      const reply = generic as unknown as FastifyReply;
      reply.header('Request-Id', request.id);
      const se = errors.invalidRequest('invalid_url', `The request URL could not be read (${err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path segment is too long' : 'invalid percent-encoding'}).`);
      return reply.code(se.status).type('application/json; charset=utf-8').send(JSON.stringify(se.body(request.id)));
    },
    // Bytes Node's HTTP parser rejects before any request exists (broken framing, bad header bytes, an oversized
    // head): still the contract's error body with a Request-Id, then the connection closes.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
      const requestId = newRequestId();
      const se =
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new ServiceError({ status: 408, type: 'invalid_request_error', code: 'request_timeout', message: 'The request headers did not arrive in time.' })
          : err.code === 'HPE_HEADER_OVERFLOW'
            ? errors.invalidRequest('request_header_too_large', 'The request line and headers exceed 16 KiB.')
            : errors.invalidRequest('malformed_request', 'The request is not valid HTTP/1.1 (request line, headers or body framing).');
      const body = JSON.stringify(se.body(requestId));
      socket.end(
        `HTTP/1.1 ${se.status} ${se.status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
      log?.warn({ req: requestId, code: err.code, status: se.status }, 'malformed request');
    },
  });

  // Each route's validator is compiled on its first request, not at start: compiling every schema of every
  // area took ~200 ms, which the embedded default (a CLI command that serves one request) paid every time.
  app.setValidatorCompiler(({ schema, httpPart }) => {
    let compiled: ReturnType<typeof compileValidator> | undefined;
    const validate: FastifyValidationResult = Object.assign(
      (...args: unknown[]) => {
        compiled ??= compileValidator(schema, httpPart);
        const ok = (compiled as (...a: unknown[]) => boolean)(...args);
        validate.errors = compiled.errors as FastifyValidationResult['errors'];
        return ok;
      },
      { errors: null },
    );
    return validate;
  });

  // JSON only (contract.md §1): anything else with a body → 415; an empty body counts as no body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(errors.invalidJson((err as Error).message), undefined);
    }
  });

  const sendError = (request: FastifyRequest, reply: FastifyReply, err: ServiceError) => {
    if (err.headers) reply.headers(err.headers);
    return reply.code(err.status).type('application/json; charset=utf-8').send(JSON.stringify(err.body(request.id)));
  };

  app.setErrorHandler((err, request, reply) => {
    const se = toServiceError(err);
    if (se.status === 415) {
      const ct = request.headers['content-type'] ?? '';
      return sendError(request, reply, errors.unsupportedMediaType(ct));
    }
    if (se.status >= 500) log?.error({ err, req: request.id }, 'unhandled error');
    return sendError(request, reply, se);
  });

  // Unknown paths → 404 route_not_found; known path, other method → 405 with Allow.
  const known = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allow = METHODS.filter((m) => known.find(m, path));
    const err = allow.length ? errors.methodNotAllowed(request.method, path, allow) : errors.routeNotFound(request.method, path);
    return sendError(request, reply, err);
  });

  // Hooks take callbacks rather than being async functions: no promise per hook per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('Request-Id', request.id);
    const spec = request.routeOptions.config?.spec;
    const state: RequestState = { accountId: '', rateKey: `ip:${request.ip}`, admitted: false, started: process.hrtime.bigint() };
    request.payorch = state;
    if (spec && spec.auth !== 'none') {
      try {
        authenticate(request, spec, state);
      } catch (err) {
        // A failed authentication counts against the caller's address, so that guessing keys or client
        // secrets is throttled like any other traffic (429 once the address is over its limit).
        const admission = limiter.admit(state.rateKey);
        if (!admission.ok) return done(errors.rateLimited(admission.code, admission.message, admission.retryAfter));
        state.admitted = true;
        return done(err as Error);
      }
    }
    const admission = limiter.admit(state.rateKey);
    if (!admission.ok) return done(errors.rateLimited(admission.code, admission.message, admission.retryAfter));
    state.admitted = true;
    done();
  });

  /** Sets the account (and the rate-limit bucket) the bearer credential stands for, or throws the 401. */
  function authenticate(request: FastifyRequest, spec: RouteSpec, state: RequestState): void {
    const token = bearer(request);
    const useSecret = spec.auth === 'client_secret' || (spec.auth === 'api_key_or_client_secret' && token?.startsWith('cs_'));
    if (useSecret) {
      if (!token) throw errors.authentication('missing_client_secret', "This operation is authenticated with the payment session's client_secret as the bearer credential.");
      // Without a session in the path, the secret names its session (Sessions.authenticateSecret).
      const pathId = (request.params as Record<string, string | undefined>).session_id;
      const auth = token.startsWith('cs_') ? services.sessions.authenticateSecret(pathId, token) : undefined;
      if (!auth || auth.expiresMs <= services.clock.now(auth.accountId)) {
        throw errors.authentication('invalid_client_secret', 'The client secret is not valid for this payment session (wrong session, wrong secret, or the session expired).');
      }
      state.accountId = auth.accountId;
      state.sessionId = auth.sessionId;
      state.rateKey = `cs:${auth.sessionId}`;
    } else {
      const auth = services.accounts.authenticate(token);
      state.accountId = auth.accountId;
      state.keyId = auth.keyId;
      state.rateKey = `key:${auth.keyId}`;
    }
  }

  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const rate = limiter.state(request.payorch?.rateKey ?? `ip:${request.ip}`);
    reply.header('X-RateLimit-Limit', rate.limit);
    reply.header('X-RateLimit-Remaining', rate.remaining);
    reply.header('X-RateLimit-Reset', rate.reset);
    done(null, payload);
  });

  const finish = (request: FastifyRequest) => {
    const state = request.payorch;
    if (state?.admitted) {
      state.admitted = false;
      limiter.release(state.rateKey);
    }
  };
  app.addHook('onRequestAbort', (request, done) => {
    finish(request);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    finish(request);
    const state = request.payorch;
    const ms = state ? Number(process.hrtime.bigint() - state.started) / 1e6 : undefined;
    accessLog?.write({ req: request.id, method: request.method, path: request.url.split('?')[0]!, status: reply.statusCode, ms, account: state?.accountId || undefined });
    done();
  });

  for (const spec of allRoutes) {
    const url = API_PREFIX + spec.url;
    known.on(spec.method, url, () => undefined);
    app.route({
      method: spec.method,
      url,
      config: { spec },
      schema: Object.fromEntries(
        Object.entries({ body: spec.body, querystring: spec.query, params: spec.params }).filter(([, v]) => v !== undefined),
      ),
      handler: (request, reply) => runRoute(spec, request, reply),
    });
  }

  // HTML pages (http/pages.ts): payments' hosted checkout page; billing's invoice page, portal and
  // subscription checkout page.
  registerPages(app, [...paymentsPages, ...billingPages], { services, publicUrl: opts.publicUrl, onUrl: (url) => known.on('GET', url, () => undefined) });

  async function runRoute(spec: RouteSpec, request: FastifyRequest, reply: FastifyReply) {
    const accountId = request.payorch?.accountId ?? '';
    const ctx: RouteContext<unknown, unknown, unknown> = {
      accountId,
      apiKeyId: request.payorch?.keyId,
      sessionId: request.payorch?.sessionId,
      body: request.body ?? {},
      query: request.query ?? {},
      params: request.params ?? {},
      requestId: request.id,
      now: accountId ? services.clock.now(accountId) : Date.now(),
      path: request.url.split('?')[0]!,
      baseUrl: opts.publicUrl(),
      services,
    };
    /** The handler's answer; `response`: its success object (to save without its secret, RouteSpec.saved). */
    const invoke = (): { status: number; body: string; response?: unknown } => {
      const r = spec.handler(ctx);
      if (r instanceof Outcome) return { status: r.error.status, body: JSON.stringify(r.error.body(request.id)) };
      return { status: spec.status ?? 200, body: JSON.stringify(r), response: r };
    };

    const rawKey = request.headers['idempotency-key'];
    const key = spec.method !== 'GET' && accountId ? (Array.isArray(rawKey) ? rawKey[0] : rawKey) : undefined;
    let out: { status: number; body: string; replayed?: boolean };
    if (key === undefined) {
      // Reads run in a plain (deferred) transaction: no write lock, no wait for the next group commit.
      out = spec.method === 'GET' ? store.tx(invoke) : await store.grouped(invoke);
    } else {
      IdempotencyStore.validateKey(key);
      const fp = fingerprint((d) => services.sealer.mac(d), spec.method, ctx.path, request.body);
      try {
        out = await store.grouped(() => {
          const earlier = idempotency.lookup(accountId, key, fp);
          if (earlier) {
            if (!spec.saved || earlier.status >= 400) return earlier;
            return { ...earlier, body: JSON.stringify(spec.saved.restore(JSON.parse(earlier.body), { accountId, services })) };
          }
          const result = invoke();
          if (spec.saved && result.response !== undefined) {
            idempotency.save(accountId, key, fp, result.status, spec.saved.strip(result.response, result.body), false);
          } else {
            idempotency.save(accountId, key, fp, result.status, result.body);
          }
          return result;
        });
      } catch (err) {
        // A thrown failure rolled the operation back; if it is the operation's outcome (404, 409, …),
        // record it so that a retry with this key gets the same answer.
        if (err instanceof ServiceError && isSavedOutcome(err) && !err.code.startsWith('idempotency_key_')) {
          await store.grouped(() => {
            if (!idempotency.lookup(accountId, key, fp)) idempotency.save(accountId, key, fp, err.status, JSON.stringify(err.body(request.id)));
          });
        }
        throw err;
      }
      if (out.replayed) {
        reply.header('Idempotent-Replayed', 'true');
        if (out.status >= 400) {
          const body = JSON.parse(out.body) as { error: { request_id?: string } };
          reply.header('Original-Request', body.error.request_id ?? '');
          body.error.request_id = request.id;
          out = { ...out, body: JSON.stringify(body) };
        }
      }
    }
    return reply.code(out.status).type('application/json; charset=utf-8').send(out.body);
  }

  return app;
}
