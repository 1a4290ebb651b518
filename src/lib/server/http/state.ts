// What the server keeps on each request while it is in flight (set by lifecycle.ts), and the route's spec on
// fastify's route config: declared here, once, for every module that reads them.
import type { Fault } from '../../contract/faults.js';
import type { Caller } from './auth.js';
import type { RouteSpec } from './route.js';

/** What a request in flight carries of its fault (faults.ts). */
export interface RequestFault {
  fault: Fault;
  /** What the fault did, once it has: shown in the request log (`simulated`). */
  done?: string;
}

export interface RequestState extends Caller {
  /** Holds an in-flight slot of `rateKey` until the request ends. */
  admitted: boolean;
  /** The client went away (onRequestAbort): a request admitted after that takes no slot (none would give it back). */
  aborted: boolean;
  started: bigint;
  /** A fault injected into this request (faults.ts), marked in its log lines. */
  fault: RequestFault | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    payorch?: RequestState;
  }
  interface FastifyContextConfig {
    spec?: RouteSpec;
  }
}
