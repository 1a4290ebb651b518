// Running a route: its context, then the handler in a transaction — a read after the writes in progress have
// committed, a write in the group commit together with its idempotency record — then the answer: the response
// object, a committed failure (Outcome), or a thrown error that undid everything. The handler (and the
// idempotency record's lookup and save) are awaited inside the transaction's work: it commits once they settled.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PREFIX, EmptyQuery } from '../../contract/common.js';
import { Outcome } from '../domain/outcome.js';
import { jsonTextOf } from '../domain/json.js';
import { runSteps, type Steps } from '../store/steps.js';
import { ReadAway } from '../store/seam.js';
import { ServiceError } from '../errors.js';
import type { Services } from '../domain/services.js';
import type { HttpRuntime } from './runtime.js';
import { fingerprint, IdempotencyKeys, isSavedOutcome } from './idempotency.js';
import type { KnownPaths } from './replies.js';
import { InSteps, type HandlerResult, type RouteContext, type RouteSpec } from './route.js';

interface Answer {
  status: number;
  body: string;
  /** The success object (saved for replays without its secret, RouteSpec.saved). */
  response?: unknown;
  replayed?: boolean;
  /** Long work still to run (InSteps): the answer is what its last step returns. */
  steps?: Steps<Answer>;
  /** A read the engine runs away from the request (ReadAway): the answer is what it finishes with. */
  long?: ReadAway<HandlerResult>;
}

export interface ServeOptions {
  services: Services;
  runtime: HttpRuntime;
  /** The API's public base URL (…/functions/v1), for links such as a session's fallback_url. */
  publicUrl: () => string;
  known: KnownPaths;
}

/**
 * Registers `spec` as a fastify route whose handler executes it. The one rule for query strings: a key the route
 * does not take is 400 parameter_unknown on every route, so a route without a query schema takes none
 * (docs/api.md "Errors").
 */
export function serveRoute(app: FastifyInstance, spec: RouteSpec, opts: ServeOptions): void {
  const url = API_PREFIX + spec.url;
  const query = spec.query ?? EmptyQuery;
  if ((query as { additionalProperties?: unknown }).additionalProperties !== false) {
    throw new Error(`${spec.operationId}: a query schema must refuse unknown keys (additionalProperties: false)`);
  }
  opts.known.add(spec.method, url);
  app.route({
    method: spec.method,
    url,
    config: { spec },
    schema: Object.fromEntries(
      Object.entries({ body: spec.body, querystring: query, params: spec.params }).filter(([, v]) => v !== undefined),
    ),
    ...(spec.body ? { preValidation: noBodyAsEmpty } : {}),
    handler: (request, reply) => execute(spec, request, reply, opts),
  });
}

/**
 * A route with a body schema, given no body: validated as `{}` (a POST without a body is a POST with no
 * parameters). A hook of those routes only, so that no other request pays for it.
 */
function noBodyAsEmpty(request: FastifyRequest, _reply: unknown, done: () => void): void {
  if (request.body === undefined) request.body = {};
  done();
}

async function execute(spec: RouteSpec, request: FastifyRequest, reply: FastifyReply, opts: ServeOptions) {
  const ctx = context(request, opts);
  const rawKey = request.headers['idempotency-key'];
  const key = spec.method !== 'GET' && ctx.accountId ? (Array.isArray(rawKey) ? rawKey[0] : rawKey) : undefined;
  const { store } = opts.services;
  let out: Answer;
  if (spec.method === 'GET') out = await store.read(async () => answer(spec, ctx));
  else if (key === undefined) out = await store.grouped(async () => answer(spec, ctx));
  else out = await idempotently(spec, ctx, key, request.body, opts.runtime.idempotency);
  if (out.steps) out = await runSteps(store, out.steps);
  if (out.long) out = result(spec, ctx, await store.readAway(out.long));
  if (spec.method !== 'GET') await opts.services.scheduler.afterWrite();
  if (out.replayed) out = replayed(reply, out);
  return reply.code(out.status).type('application/json; charset=utf-8').send(out.body);
}

function context(
  request: FastifyRequest,
  { services, runtime, publicUrl }: ServeOptions,
): RouteContext<unknown, unknown, unknown> {
  const accountId = request.payorch?.accountId ?? '';
  return {
    accountId,
    apiKeyId: request.payorch?.keyId,
    sessionId: request.payorch?.sessionId,
    body: request.body ?? {},
    query: request.query ?? {},
    params: request.params ?? {},
    requestId: request.id,
    now: accountId ? services.clock.now(accountId) : (services.config.now ?? Date.now)(), // a seeded server's epoch
    path: request.url.split('?')[0]!,
    baseUrl: publicUrl(),
    services,
    requestLog: runtime.requestLog,
    faults: runtime.faults,
  };
}

/** The handler's answer, inside the caller's transaction (for long work: the steps that will give it). */
async function answer(spec: RouteSpec, ctx: RouteContext<unknown, unknown, unknown>): Promise<Answer> {
  const r = await spec.handler(ctx);
  if (r instanceof InSteps) return { status: 202, body: '', steps: answering(spec, ctx, r.steps) };
  if (r instanceof ReadAway) {
    // Outside the request's transaction: only a read may leave it.
    if (spec.method !== 'GET') throw new Error(`${spec.operationId}: a long read answers only a GET`);
    return { status: 200, body: '', long: r as ReadAway<HandlerResult> };
  }
  return result(spec, ctx, r);
}

function result(spec: RouteSpec, ctx: RouteContext<unknown, unknown, unknown>, r: HandlerResult): Answer {
  if (r instanceof Outcome) return { status: r.error.status, body: JSON.stringify(r.error.body(ctx.requestId)) };
  return { status: spec.status ?? 200, body: jsonTextOf(r) ?? JSON.stringify(r), response: r };
}

async function* answering(
  spec: RouteSpec,
  ctx: RouteContext<unknown, unknown, unknown>,
  steps: Steps<HandlerResult>,
): Steps<Answer> {
  return result(spec, ctx, yield* steps);
}

/** `steps`, then (in the last step's transaction) `then` with the answer. */
async function* finally_<T>(steps: Steps<T>, then: (value: T) => Promise<void>): Steps<T> {
  const value = yield* steps;
  await then(value);
  return value;
}

/**
 * A write under an Idempotency-Key: the earlier answer for the same request, or the operation and its
 * record in one transaction. A failure that undid the operation but is its answer (404, 409, …) is recorded
 * after the rollback, so that a retry with the key gets the same answer.
 */
async function idempotently(
  spec: RouteSpec,
  ctx: RouteContext<unknown, unknown, unknown>,
  key: string,
  body: unknown,
  idempotency: IdempotencyKeys,
): Promise<Answer> {
  const { services } = ctx;
  const { store } = services;
  const accountId = ctx.accountId;
  IdempotencyKeys.validateKey(key);
  const fp = fingerprint((d) => services.sealer.mac(d), spec.method, ctx.path, body);
  try {
    return await store.grouped(async () => {
      const earlier = await idempotency.lookup(accountId, key, fp);
      if (earlier) {
        if (!spec.saved?.restore || earlier.status >= 400) return earlier;
        return {
          ...earlier,
          body: JSON.stringify(await spec.saved.restore(JSON.parse(earlier.body), { accountId, services })),
        };
      }
      const result = await answer(spec, ctx);
      const save = async (r: Answer) => {
        if (spec.saved && r.response !== undefined)
          await idempotency.save(
            accountId,
            key,
            fp,
            r.status,
            spec.saved.strip(r.response, r.body, { accountId, services }),
            false,
          );
        else await idempotency.save(accountId, key, fp, r.status, r.body);
      };
      if (!result.steps) await save(result);
      else {
        // Long work: the key is taken now (a second request with it answers 409 while this one runs) and its
        // answer saved in the transaction of the last step. A server that dies meanwhile leaves the claim,
        // which expires after a minute.
        await idempotency.claim(accountId, key, fp);
        result.steps = finally_(result.steps, save);
      }
      return result;
    });
  } catch (err) {
    if (err instanceof ServiceError && isSavedOutcome(err) && !err.code.startsWith('idempotency_key_')) {
      await store.grouped(async () => {
        if (!(await idempotency.lookup(accountId, key, fp)))
          await idempotency.save(accountId, key, fp, err.status, JSON.stringify(err.body(ctx.requestId)));
      });
    }
    throw err;
  }
}

/** A replayed answer: marked as such; a replayed error names this request and the original one. */
function replayed(reply: FastifyReply, out: Answer): Answer {
  reply.header('Idempotent-Replayed', 'true');
  if (out.status < 400) return out;
  const body = JSON.parse(out.body) as { error: { request_id?: string } };
  reply.header('Original-Request', body.error.request_id ?? '');
  body.error.request_id = reply.request.id;
  return { ...out, body: JSON.stringify(body) };
}
