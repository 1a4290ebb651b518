// Sending webhook POSTs (docs/api.md "Deliveries"): an endpoint's batch one POST after another in event order, each
// bounded in time (connect included) and in the body it reads back (discarded up to a cap, so the connection is
// reused). Only a complete 2xx answer succeeds. A batch stops at its first failure, so an endpoint that does not
// answer holds a slot for one timeout, not its whole backlog. No database here: dispatcher.ts reads batches and
// records outcomes. Runs in its own thread (sender-worker.ts) when it can, else in the server's.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { markWhileOpen } from '../ownports.js';
import { succeeded, type AttemptOutcome, type SendJob } from '../domain/webhooks/deliveries.js';
import type { Fault } from '../../contract/faults.js';
import { webhookHeaders } from '../../webhooks/signature.js';

/** Response bytes read (and discarded) at most; past this the connection is dropped. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** The longest error text kept on a delivery. */
const MAX_ERROR_CHARS = 300;

export type { AttemptOutcome, SendJob };

/** A job with the fault a rule gave its attempt (docs/api.md "Fault injection"). */
export interface FaultedJob extends SendJob {
  fault?: Fault;
}

export interface SendBatch {
  endpoint: string;
  jobs: FaultedJob[];
}

export interface SendResult {
  endpoint: string;
  delivery: string;
  outcome: AttemptOutcome;
}

export interface SenderConfig {
  userAgent: string;
  timeoutMs: number;
  /** Sockets open at once, per protocol (keep-alive: one per endpoint being served). */
  maxSockets: number;
  /**
   * The server's own listening port on loopback, and a shared byte per local port (ownports.ts): set while one of
   * these sockets is connected from that port to the server itself, so that it can tell its own deliveries apart.
   */
  own?: { port: number; ports: Uint8Array };
}

/** The text of an error, bounded. */
const errorText = (s: string) => s.slice(0, MAX_ERROR_CHARS);

interface Queued {
  batch: SendBatch;
  onResult: (r: SendResult) => void;
  onDone: () => void;
}

/** One endpoint's batches: the one being sent, then those handed over meanwhile (the dispatcher's pipeline). */
interface Lane {
  abort: AbortController;
  queue: Queued[];
}

export class Sender {
  private readonly http: http.Agent;
  private readonly https: https.Agent;
  private readonly lanes = new Map<string, Lane>();
  private stopped = false;

  constructor(private readonly config: SenderConfig) {
    this.http = new http.Agent({ keepAlive: true, maxSockets: config.maxSockets });
    this.https = new https.Agent({ keepAlive: true, maxSockets: config.maxSockets });
    const own = config.own;
    if (own) {
      // The socket is made here, so this listener runs before the request's bytes are written (they wait for
      // 'connect'): the port is marked before the server can read them.
      this.http.createConnection = (options: net.NetConnectOpts) => {
        const socket = net.createConnection(options);
        socket.once('connect', () =>
          markWhileOpen(own.ports, own.port, socket, (unmark) => socket.once('close', unmark)),
        );
        return socket;
      };
    }
  }

  /**
   * Sends the batch's POSTs one after another, after the endpoint's batches handed over before it: `onResult` for
   * each attempt made, `onDone` when the batch is over. A failed attempt ends its batch and drops the endpoint's
   * batches queued behind it (their deliveries were not attempted: the dispatcher reads them again).
   */
  submit(batch: SendBatch, onResult: (r: SendResult) => void, onDone: () => void): void {
    if (this.stopped) {
      onDone();
      return;
    }
    const item = { batch, onResult, onDone };
    const lane = this.lanes.get(batch.endpoint);
    if (lane) {
      lane.queue.push(item);
      return;
    }
    const fresh: Lane = { abort: new AbortController(), queue: [item] };
    this.lanes.set(batch.endpoint, fresh);
    void this.drain(batch.endpoint, fresh);
  }

  private async drain(endpoint: string, lane: Lane): Promise<void> {
    let failed = false;
    while (lane.queue.length > 0) {
      const item = lane.queue.shift()!;
      try {
        if (!failed && !lane.abort.signal.aborted && !this.stopped)
          failed = !(await this.send(item, lane.abort.signal));
      } finally {
        item.onDone();
      }
    }
    this.lanes.delete(endpoint);
  }

  /** The batch's POSTs in order until one fails; whether all succeeded. */
  private async send({ batch, onResult }: Queued, signal: AbortSignal): Promise<boolean> {
    for (const job of batch.jobs) {
      const outcome = await (job.fault ? this.faulted(job, job.fault, signal) : this.post(job, signal));
      // Aborted (the server is stopping, the endpoint changed): the attempt was cut short; its delivery stays pending.
      if (signal.aborted) return false;
      onResult({ endpoint: batch.endpoint, delivery: job.delivery, outcome });
      if (!succeeded(outcome)) return false;
    }
    return true;
  }

  /** Cuts short the endpoint's batches (its POST in flight, if any, is aborted and not reported). */
  abort(endpoint: string): void {
    this.lanes.get(endpoint)?.abort.abort();
  }

  stop(): void {
    this.stopped = true;
    for (const lane of this.lanes.values()) lane.abort.abort();
    this.http.destroy();
    this.https.destroy();
  }

  /**
   * An attempt under a fault: after its latency, a status answered for the endpoint without calling it, a POST
   * dropped (never sent), or a POST sent whose answer is lost (the endpoint gets the delivery again at the retry).
   */
  private async faulted(job: SendJob, fault: Fault, signal: AbortSignal): Promise<AttemptOutcome> {
    if (fault.latencyMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, fault.latencyMs);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (signal.aborted) return { error: 'aborted: the server is stopping' };
    }
    const action = fault.before;
    const simulated = `simulated (fault "${fault.text}")`;
    if (!action) return this.post(job, signal);
    if (action.kind === 'status')
      return {
        status: action.status,
        error: `${simulated}: the endpoint was not called; ${action.status} was answered for it`,
      };
    if (action.kind === 'drop') return { error: `${simulated}: the POST was dropped, never sent` };
    const real = await this.post(job, signal);
    return {
      error: errorText(
        `${simulated}: the POST was sent (${real.status !== undefined ? `the endpoint answered ${real.status}` : real.error}) and its answer lost`,
      ),
    };
  }

  private post(job: SendJob, signal: AbortSignal): Promise<AttemptOutcome> {
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': this.config.userAgent,
      // Signed at the attempt's real time, also on a seeded server (docs/api.md "Signatures").
      ...webhookHeaders({ id: job.eventId, type: job.eventType }, job.body, job.secrets, Math.floor(Date.now() / 1000)),
    };
    return postJson(job.url, job.body, headers, {
      timeoutMs: this.config.timeoutMs,
      signal,
      agents: { http: this.http, https: this.https },
    });
  }
}

export interface PostOptions {
  timeoutMs: number;
  signal: AbortSignal;
  agents: { http: http.Agent; https: https.Agent };
}

/** One POST; never throws: the outcome is a status or an error text. */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: PostOptions,
): Promise<AttemptOutcome> {
  return new Promise<AttemptOutcome>((resolve) => {
    let done = false;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      resolve({ error: 'the endpoint URL is not valid' });
      return;
    }
    // Port 0 would go to the protocol's default port (an endpoint saved before port 0 was refused at create).
    if (u.port === '0') {
      resolve({ error: 'the endpoint URL has port 0, which cannot be sent to' });
      return;
    }
    const secure = u.protocol === 'https:';
    const req = (secure ? https : http).request(u, {
      method: 'POST',
      agent: secure ? opts.agents.https : opts.agents.http,
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
    });
    const finish = (outcome: AttemptOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      if (outcome.error) outcome.error = errorText(outcome.error);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      finish({ error: `timed out after ${opts.timeoutMs} ms`, timedOut: true });
      req.destroy();
    }, opts.timeoutMs);
    const onAbort = () => {
      finish({ error: 'aborted: the server is stopping' });
      req.destroy();
    };
    if (opts.signal.aborted) {
      onAbort();
      return;
    }
    opts.signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => finish({ error: err.message || String(err) }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) {
          // Enough read: the answer is taken as given, the rest is not waited for.
          finish({ status });
          res.destroy();
        }
      });
      // Only an answer read to its end counts: a body shorter than its Content-Length (or a chunked body never
      // terminated) ends in 'close' or an error without 'end'.
      res.on('end', () =>
        finish(res.complete ? { status } : { status, error: `the answer (${status}) was cut short` }),
      );
      res.on('error', (err) => finish({ status, error: `the answer (${status}) was cut short: ${err.message}` }));
      res.on('close', () => finish({ status, error: `the answer (${status}) was cut short` }));
    });
    req.end(body);
  });
}
