// The request gate: the first thing every request goes through. Open, it only counts the requests in flight; closed
// (while a snapshot is restored, restore.ts), it holds new requests where they are — before their caller is
// identified or anything is read — until it opens again, and `close` resolves once the requests already past it
// have been answered. So no request sees part of the database before a restore and part after it.
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Whether the gate counts this request as in flight (Gate.enter until Gate.leave). */
    gateCounted: boolean;
  }
}

export class Gate {
  private held?: (() => void)[];
  private inFlight = 0;
  private drained?: () => void;

  get isOpen(): boolean {
    return this.held === undefined;
  }

  /** Lets `request` through now, or once the gate opens; it counts as in flight until it is answered or aborted. */
  enter(request: FastifyRequest, done: () => void): void {
    const pass = () => {
      this.inFlight++;
      request.gateCounted = true;
      done();
    };
    if (this.held) this.held.push(pass);
    else pass();
  }

  /** `request` no longer counts as in flight (answered, aborted, or a request that closes the gate itself). */
  leave(request: FastifyRequest): void {
    if (!request.gateCounted) return;
    request.gateCounted = false;
    if (--this.inFlight === 0) this.drained?.();
  }

  /** Holds new requests; resolves once every request in flight has been answered (or aborted). */
  async close(): Promise<void> {
    this.held ??= [];
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = undefined;
  }

  /** Lets the held requests through, in the order they came. */
  open(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const pass of held) pass();
  }

  /** The gate's hooks, before any other of the app's (see buildApp). */
  install(app: FastifyInstance): void {
    // A field of every request from the start (fastify's decorator) rather than a WeakSet entry per request.
    app.decorateRequest('gateCounted', false);
    app.addHook('onRequest', (request, _reply, done) => this.enter(request, done));
    app.addHook('onResponse', (request, _reply, done) => {
      this.leave(request);
      done();
    });
    app.addHook('onRequestAbort', (request, done) => {
      this.leave(request);
      done();
    });
  }
}
