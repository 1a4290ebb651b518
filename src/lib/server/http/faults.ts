// Fault injection (docs/api.md "Fault injection"), test mode only: the `Payorch-Simulate` header or a server-wide
// rule. The fault is decided and its "before" part applied in preHandler (after the request is received whole,
// authenticated, admitted and validated, so a wait never runs into the receive timeouts); its "after commit" part in
// onSend, once the handler's transaction and idempotency record have committed. The fault is kept on the request's
// state (lifecycle.ts) for the request and access logs. Delivery rules: the dispatcher asks `forDelivery`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  FaultSyntaxError,
  parseFault,
  SIMULATE_HEADER,
  SIMULATE_HEADER_LC,
  SIMULATED_HEADER,
  type Fault,
} from '../../contract/faults.js';
import { API_PREFIX } from '../../contract/common.js';
import { errors, ServiceError } from '../errors.js';
import type { FaultRulePort } from './faultrules.js';
import type { RequestFault } from './state.js';

export interface FaultHooks {
  rules: FaultRulePort;
  /** The request's fault, kept on its state (state.ts RequestState). */
  get(request: FastifyRequest): RequestFault | undefined;
  set(request: FastifyRequest, fault: RequestFault): void;
  /** A request that ends without an answer (its connection was closed): its slot, access line and log entry. */
  unanswered(request: FastifyRequest, status: number): void;
}

/** Waits that can be cut short: when the server closes, requests waiting out a latency go on at once. */
class Waits {
  private readonly pending = new Set<() => void>();

  wait(ms: number, then: () => void): void {
    let fired = false;
    const go = () => {
      if (fired) return;
      fired = true;
      clearTimeout(timer);
      this.pending.delete(go);
      then();
    };
    const timer = setTimeout(go, ms);
    this.pending.add(go);
  }

  cutShort(): void {
    for (const go of this.pending) go();
  }
}

/** Closes the connection without an answer: a socket destroyed (over HTTP), a reset the in-process transport reports. */
function resetConnection(reply: FastifyReply): void {
  reply.hijack();
  reply.raw.destroy();
}

/** The header's fault, or the rules'; a malformed header is the contract's 400. */
function faultOf(
  request: FastifyRequest,
  rules: FaultRulePort,
  accountId: string,
): Fault | undefined | Promise<Fault | undefined> {
  const header = request.headers[SIMULATE_HEADER_LC];
  if (header !== undefined) {
    const text = Array.isArray(header) ? header.join(';') : header;
    try {
      return parseFault(text, 'request');
    } catch (err) {
      if (err instanceof FaultSyntaxError) throw errors.parameterInvalid(SIMULATE_HEADER, err.message);
      throw err;
    }
  }
  if (!accountId || !rules.active) return undefined;
  const url = request.url;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).slice(API_PREFIX.length);
  return rules.forRequest(accountId, request.method, path);
}

/** Registers the hooks that inject faults into the API's requests. */
export function injectFaults(app: FastifyInstance, hooks: FaultHooks): void {
  const waits = new Waits();
  app.addHook('preClose', (done) => {
    waits.cutShort();
    done();
  });

  app.addHook('preHandler', (request, reply, done) => {
    // Nothing to inject (no header, no rule): the common case decides first, without building routeOptions.
    if (request.headers[SIMULATE_HEADER_LC] === undefined && !hooks.rules.active) return done();
    // Only the API's routes (a spec): not the hosted pages.
    if (!request.routeOptions.config?.spec) return done();
    // The fault applied: its "before" part now (after its latency), its "after commit" part in onSend.
    const inject = (fault: Fault): void => {
      const state: RequestFault = { fault };
      hooks.set(request, state);
      reply.header(SIMULATED_HEADER, fault.text);
      const before = () => {
        const action = fault.before;
        if (!action) {
          if (!fault.afterCommit) state.done = fault.text; // a latency alone
          return done();
        }
        state.done = fault.text;
        if (action.kind === 'status')
          return done(errors.simulated(action.status, fault.text, false, action.retryAfter));
        resetConnection(reply);
        hooks.unanswered(request, 0);
        done();
      };
      if (fault.latencyMs) waits.wait(fault.latencyMs, before);
      else before();
    };
    let found: Fault | undefined | Promise<Fault | undefined>;
    try {
      found = faultOf(request, hooks.rules, request.payorch?.accountId ?? '');
    } catch (err) {
      return done(err as ServiceError);
    }
    // Rules kept in a shared database answer with a promise when the account has a rule that may match.
    if (found instanceof Promise)
      return void found.then(
        (fault) => (fault ? inject(fault) : done()),
        (err: unknown) => done(err as ServiceError),
      );
    if (!found) return done();
    inject(found);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const state = hooks.get(request);
    const action = state?.fault.afterCommit;
    if (!state || !action || state.done) return done(null, payload);
    state.done = state.fault.text;
    if (action.kind === 'status') {
      const err = errors.simulated(action.status, state.fault.text, true, action.retryAfter);
      reply.code(err.status);
      if (err.headers) reply.headers(err.headers);
      return done(null, JSON.stringify(err.body(request.id)));
    }
    // The answer is lost: the work is committed, the connection closed. The onSend chain is not resumed.
    const status = reply.statusCode;
    resetConnection(reply);
    hooks.unanswered(request, status);
  });
}
