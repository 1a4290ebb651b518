// What happens around every request, in order: it gets an id; its caller is identified (auth.ts); it is
// admitted or refused by the limits (ratelimit.ts), after the requests of its credential that arrived before it
// (ArrivalOrder); its answer carries the limit headers; when it ends, its in-flight slot is given back and one access
// line is written (also when a simulated fault closed its connection without an answer: faults.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccessLog } from '../log.js';
import { errors, ServiceError } from '../errors.js';
import type { Services } from '../domain/services.js';
import { addressBucket, identify } from './auth.js';
import type { RateLimiter } from './ratelimit.js';
import type { HttpRuntime } from './runtime.js';
import { isOwnConnection } from '../ownports.js';
import type { FaultHooks } from './faults.js';
import type { RequestState } from './state.js';

/** Takes an in-flight slot for the request, or says why not (429). */
function admit(limiter: RateLimiter, state: RequestState): ServiceError | undefined {
  if (state.aborted) return undefined;
  const admission = limiter.admit(state.rateKey);
  if (!admission.ok) return errors.rateLimited(admission.code, admission.message, admission.retryAfter);
  state.admitted = true;
  return undefined;
}

function release(limiter: RateLimiter, request: FastifyRequest): void {
  const state = request.payorch;
  if (state?.admitted) {
    state.admitted = false;
    limiter.release(state.rateKey);
  }
}

/** A request waiting for its turn to be admitted: `admit` once it has been identified. */
interface Turn {
  admit: (() => void) | undefined;
}

/**
 * The requests of each bearer credential (the Authorization header as sent) being identified, in arrival order.
 * Over a connection pool (PostgreSQL) lookups come back in any order, so a request could take its in-flight slot
 * after later ones of its key and be refused for theirs; here each is admitted or refused only once every earlier
 * request of its credential has been (docs/api.md "Rate limits"). Different credentials never wait for each other.
 */
class ArrivalOrder {
  private readonly waiting = new Map<string, Turn[]>();

  /** Holds the request's place; `ready` on the place once it is identified. */
  enter(credential: string): { queue: Turn[]; turn: Turn } {
    const turn: Turn = { admit: undefined };
    const queue = this.waiting.get(credential);
    if (queue) {
      queue.push(turn);
      return { queue, turn };
    }
    const fresh = [turn];
    this.waiting.set(credential, fresh);
    return { queue: fresh, turn };
  }

  /** The request is identified: it is admitted now if its turn has come, else once those before it have been. */
  ready(credential: string, queue: Turn[], turn: Turn, admit: () => void): void {
    turn.admit = admit;
    while (queue.length > 0 && queue[0]!.admit) queue.shift()!.admit!();
    if (queue.length === 0 && this.waiting.get(credential) === queue) this.waiting.delete(credential);
  }
}

/** Whether the request comes from the server's own webhook sender (ownports.ts). */
function fromOwnSender(request: FastifyRequest, ownPorts: Uint8Array | undefined): boolean {
  const socket = request.raw.socket;
  return ownPorts !== undefined && isOwnConnection(ownPorts, socket.remoteAddress, socket.remotePort);
}

// Hooks take callbacks rather than being async functions: no promise per hook per request (but the one that
// identifies the caller, which reads the store).
export function followEachRequest(
  app: FastifyInstance,
  services: Services,
  runtime: HttpRuntime,
  accessLog: AccessLog | undefined,
  ownPorts?: Uint8Array,
): FaultHooks {
  const { limiter, requestLog } = runtime;
  const order = new ArrivalOrder();

  /** The end of a request: its slot given back, its access line and request-log entry written. */
  const ended = (request: FastifyRequest, status: number) => {
    release(limiter, request);
    const state = request.payorch;
    const ms = state ? Number(process.hrtime.bigint() - state.started) / 1e6 : undefined;
    const simulated = state?.fault?.done;
    accessLog?.write({
      req: request.id,
      method: request.method,
      path: request.url.split('?')[0]!,
      status,
      ms,
      account: state?.accountId || undefined,
      simulated,
    });
    if (state?.accountId)
      requestLog.record({
        accountId: state.accountId,
        requestId: request.id,
        method: request.method,
        url: request.url,
        status,
        ms: ms ?? 0,
        simulated,
        ip: request.ip,
        keyId: state.keyId,
      });
  };

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('Request-Id', request.id);
    const route = request.routeOptions; // a getter that builds a new object on every read
    const spec = route.config?.spec;
    // A route that takes no credential (health, the OpenAPI document, hosted pages and their actions; a page
    // is a route without a spec): the address's public bucket. Anything else starts in its guest bucket.
    const open = spec ? spec.auth === 'none' : route.url !== undefined;
    // One shape for every request's state (fields set later are declared here): no hidden-class changes.
    const state: RequestState = {
      accountId: '',
      keyId: undefined,
      sessionId: undefined,
      rateKey: addressBucket(request, open ? 'public' : 'guest'),
      admitted: false,
      aborted: false,
      started: process.hrtime.bigint(),
      fault: undefined,
    };
    request.payorch = state;
    // A route without limits (the health check) answers whatever any client, or the server itself, does.
    if (spec?.limited === false) return done();
    // The server's own webhook deliveries (an endpoint pointed at its own pages) count in buckets of their own.
    if (fromOwnSender(request, ownPorts)) state.rateKey = `own:${state.rateKey}`;
    if (!spec || spec.auth === 'none') return done(admit(limiter, state));
    const credential = request.headers.authorization ?? '';
    const { queue, turn } = order.enter(credential);
    identify(request, spec, services).then(
      (caller) =>
        order.ready(credential, queue, turn, () => {
          state.accountId = caller.accountId;
          state.keyId = caller.keyId;
          state.sessionId = caller.sessionId;
          state.rateKey = caller.rateKey;
          done(admit(limiter, state));
        }),
      // A failed authentication counts against the address's guest bucket, so that guessing keys or client
      // secrets is throttled (429 once over the limit) without taking the address's hosted pages and /health
      // down with it (docs/api.md "Rate limits").
      (err: unknown) =>
        order.ready(credential, queue, turn, () => done(admit(limiter, state) ?? (err as ServiceError))),
    );
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const rate = limiter.state(request.payorch?.rateKey ?? `ip:${request.ip}`);
    reply.header('X-RateLimit-Limit', rate.limit);
    reply.header('X-RateLimit-Remaining', rate.remaining);
    reply.header('X-RateLimit-Reset', rate.reset);
    done(null, payload);
  });

  app.addHook('onRequestAbort', (request, done) => {
    if (request.payorch) request.payorch.aborted = true;
    release(limiter, request);
    done();
  });

  app.addHook('onResponse', (request, reply, done) => {
    ended(request, reply.statusCode);
    done();
  });

  return {
    rules: runtime.faults,
    get: (request) => request.payorch?.fault,
    set: (request, fault) => {
      if (request.payorch) request.payorch.fault = fault;
    },
    unanswered: ended,
  };
}
