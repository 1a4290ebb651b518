// One way to declare a route: method, path, schemas, auth mode, status, handler. The app turns these into
// fastify routes (validation, auth, rate limits, idempotency, error bodies) and into /openapi.json.
import type { TSchema, Static } from '@sinclair/typebox';
import type { Services } from '../domain/services.js';
import type { Outcome } from '../domain/outcome.js';
import type { Steps } from '../store/steps.js';
import type { RequestLogPort } from './requestlog.js';
import type { FaultRulePort } from './faultrules.js';
import type { HttpMethod } from '../../contract/prefix.js';

export type AuthMode =
  /** `Authorization: Bearer sk_test_…` */
  | 'api_key'
  /** the payment session's `client_secret` as bearer; the session id is the `session_id` path param */
  | 'client_secret'
  /** either of the above (docs/api.md "Authentication and tenancy") */
  | 'api_key_or_client_secret'
  | 'none';

export interface RouteContext<B, Q, P> {
  /** The authenticated merchant account ('' on routes with auth 'none'). */
  accountId: string;
  /** The id of the API key that authenticated the request (undefined for client-secret and unauthenticated routes). */
  apiKeyId?: string;
  /** The payment session whose client secret authenticated the request (undefined otherwise). */
  sessionId?: string;
  body: B;
  query: Q;
  params: P;
  requestId: string;
  /** The account's clock (ms), read once per request. */
  now: number;
  /** The request path without the query string (used as a list's `url`). */
  path: string;
  /** Absolute base URL of the API as the caller reached it (for hosted-page links). */
  baseUrl: string;
  services: Services;
  /** The server's live request log (`GET /request-log`). */
  requestLog: RequestLogPort;
  /** The server's fault rules (`/test-helpers/faults`). */
  faults: FaultRulePort;
}

export interface RouteSpec<B = unknown, Q = unknown, P = unknown> {
  method: HttpMethod;
  /** Path under the API prefix (`/functions/v1`), fastify syntax for params (`/sessions/:session_id`). */
  url: string;
  operationId: string;
  summary: string;
  /** The OpenAPI operation's description; openapi.ts writes one from the route's facts when absent. */
  description?: string;
  tag: string;
  auth: AuthMode;
  body?: TSchema;
  query?: TSchema;
  params?: TSchema;
  response: TSchema;
  /** Success status: 201 for POSTs that create, else 200 (docs/api.md "Conventions"). */
  status?: 200 | 201;
  /** Error statuses this route can answer, beyond the ones every route can (for the OpenAPI document). */
  errors?: number[];
  /**
   * `false`: no rate or in-flight limit applies, nor is the request counted (docs/api.md "Rate limits"). Only for a
   * route that reads and writes nothing, so that it answers whatever any client does: the health check.
   */
  limited?: false;
  /**
   * How a success response is saved for idempotent replays. By default it is sealed (AES-GCM) at rest, since
   * responses can hold secrets. A route whose response's only secret can be made again instead saves it without
   * that secret, in clear, and puts it back on replay (sealing is costly on a hot path).
   */
  saved?: SavedWithoutSecret;
  /**
   * Runs inside one transaction together with the idempotency record, so an acknowledged write and its replayable
   * response commit atomically. A handler may be `async` (it awaits the store): the transaction holds until its
   * promise settles (the SQLite group commit runs one request's work to its end before the next one's starts).
   * Answers the response body, or an `Outcome` (domain/outcome.ts) for a committed failure (e.g. a 402 decline that
   * also records the failed payment), or `InSteps` (long work) or a `ReadAway` (a read the engine runs away from the
   * request, GET only).
   */
  handler: (ctx: RouteContext<B, Q, P>) => HandlerResult | Promise<HandlerResult>;
}

/** A handler's answer: the response object, or a committed failure (InSteps and ReadAway are objects too). */
export type HandlerResult = object | Outcome;

/**
 * A handler's answer for long work (a test clock advanced over a year of renewals): the steps that compute
 * the answer. Each step runs in a write transaction of its own, and other requests run between steps
 * (store/steps.ts runSteps); with an Idempotency-Key, the key is claimed first and the answer saved in the
 * last step's transaction.
 */
export class InSteps {
  constructor(readonly steps: Steps<HandlerResult>) {}
}

/** The request an answer is saved for or replayed to (inside its transaction). */
export interface ReplayContext {
  accountId: string;
  services: Services;
}

export interface SavedWithoutSecret {
  /** The response as saved, JSON text with no secret left in it (`json`: the response as sent). */
  strip(response: unknown, json: string, ctx: ReplayContext): string;
  /** The response to replay, from the saved one (inside the replaying request's transaction); none: as saved. */
  restore?(saved: unknown, ctx: ReplayContext): Promise<unknown>;
}

/**
 * For a route whose responses hold no secret — objects that are stored in clear anyway (a payment, a journal
 * entry): saved for replays as sent, without sealing.
 */
export const savedAsSent: SavedWithoutSecret = { strip: (_response, json) => json };

/**
 * For a route whose answer is the object of the event it records (a created session, a confirmed payment, a
 * posted journal entry): saved as a reference to that event instead of a third copy of the object (the row
 * and the event hold the other two). A replay answers
 * the event's object — the same bytes — made whole by `inner` (a session's client secret); if the event log no
 * longer has it (the test clock moved past its 30 days within the key's 24 hours), the object as it is now
 * (`current`). An answer that is not an event's object (a status that records none) is saved as `inner` saves it.
 */
export function savedAsEvent(
  current: (ctx: ReplayContext, id: string) => Promise<unknown>,
  inner: SavedWithoutSecret = savedAsSent,
): SavedWithoutSecret {
  return {
    strip: (response, json, ctx) => {
      const text = inner.strip(response, json, ctx);
      const id = (response as { id?: unknown }).id;
      const event = typeof id === 'string' ? ctx.services.events.recordedAs(id, text) : undefined;
      return event ? JSON.stringify({ replay_from_event: event, object_id: id }) : text;
    },
    restore: async (saved, ctx) => {
      const ref = saved as { replay_from_event?: unknown; object_id?: unknown };
      const object =
        typeof ref.replay_from_event === 'string'
          ? ((await ctx.services.events.find(ctx.accountId, ref.replay_from_event))?.data.object ??
            (await current(ctx, String(ref.object_id))))
          : saved;
      return inner.restore ? inner.restore(object, ctx) : object;
    },
  };
}

/**
 * Declares a route. A handler may answer at once or with a promise: either way it runs to its end inside the
 * request's transaction (http/execute.ts awaits it there).
 */
export function defineRoute<
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
>(
  spec: Omit<RouteSpec, 'handler' | 'body' | 'query' | 'params'> & {
    body?: B;
    query?: Q;
    params?: P;
    handler: (
      ctx: RouteContext<
        B extends TSchema ? Static<B> : undefined,
        Q extends TSchema ? Static<Q> : undefined,
        P extends TSchema ? Static<P> : undefined
      >,
    ) => HandlerResult | Promise<HandlerResult>;
  },
): RouteSpec {
  return spec as unknown as RouteSpec;
}
