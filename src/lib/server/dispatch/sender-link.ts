// The dispatcher's handle on the sender (sender.ts): in a thread of its own (sender-worker.ts) when one can start,
// else in this thread. Either way the dispatcher hands it batches and hears back their attempts' outcomes and the
// end of each batch.
import { Worker } from 'node:worker_threads';
import { Sender, type SendBatch, type SendResult, type SenderConfig } from './sender.js';

export type ToSender = { t: 'batch'; batch: SendBatch } | { t: 'abort'; endpoint: string } | { t: 'stop' };
export type FromSender = { t: 'progress'; results: SendResult[]; done: string[] } | { t: 'stopped' };

export interface SenderEvents {
  /** Outcomes of attempts made, then the endpoints whose batch has ended (after their last outcome; once per batch). */
  progress(results: SendResult[], done: string[]): void;
}

export interface SenderLink {
  send(batch: SendBatch): void;
  abort(endpoint: string): void;
  stop(): Promise<void>;
}

export interface SenderLinkOptions extends Omit<SenderConfig, 'own'> {
  own?: { port: number; shared: SharedArrayBuffer };
  /** Run the sender in this thread (no worker). */
  inThread?: boolean;
}

/** The sender in this thread. */
function localLink(options: SenderLinkOptions, events: SenderEvents): SenderLink {
  const sender = new Sender({
    ...options,
    own: options.own ? { port: options.own.port, ports: new Uint8Array(options.own.shared) } : undefined,
  });
  return {
    send(batch) {
      sender.submit(
        batch,
        (r) => events.progress([r], []),
        () => events.progress([], [batch.endpoint]),
      );
    },
    abort: (endpoint) => sender.abort(endpoint),
    async stop() {
      sender.stop();
    },
  };
}

/**
 * The sender in a worker thread, started with the first batch (its start time and memory are not paid by a server
 * that never delivers). If the worker fails, the batches it held end without outcomes (their deliveries stay
 * pending and are sent again) and the sender goes on in this thread.
 */
export function senderLink(options: SenderLinkOptions, events: SenderEvents): SenderLink {
  if (options.inThread) return localLink(options, events);
  let worker: Worker | undefined;
  let fallback: SenderLink | undefined;
  let stopping = false;
  /** Batches with the worker, per endpoint. */
  const held = new Map<string, number>();
  const failed = () => {
    if (stopping || fallback) return;
    fallback = localLink(options, events);
    worker = undefined;
    const ended = [...held].flatMap(([endpoint, n]) => Array<string>(n).fill(endpoint));
    held.clear();
    if (ended.length) events.progress([], ended);
  };
  const start = (): Worker | undefined => {
    if (worker || fallback) return worker;
    try {
      const { inThread: _ignored, ...config } = options;
      worker = new Worker(new URL('./sender-worker.js', import.meta.url), { workerData: config });
    } catch {
      failed();
      return undefined;
    }
    worker.unref();
    worker.on('message', (msg: FromSender) => {
      if (msg.t !== 'progress') return;
      for (const e of msg.done) {
        const n = (held.get(e) ?? 1) - 1;
        if (n > 0) held.set(e, n);
        else held.delete(e);
      }
      events.progress(msg.results, msg.done);
    });
    worker.on('error', failed);
    worker.on('exit', failed);
    return worker;
  };
  return {
    send(batch) {
      const w = start();
      if (!w) return fallback!.send(batch);
      held.set(batch.endpoint, (held.get(batch.endpoint) ?? 0) + 1);
      w.postMessage({ t: 'batch', batch } satisfies ToSender);
    },
    abort(endpoint) {
      if (fallback) fallback.abort(endpoint);
      else worker?.postMessage({ t: 'abort', endpoint } satisfies ToSender);
    },
    async stop() {
      stopping = true;
      await fallback?.stop();
      const w = worker;
      if (!w) return;
      worker = undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        w.on('message', (m: FromSender) => {
          if (m.t === 'stopped') {
            clearTimeout(timer);
            resolve();
          }
        });
        w.postMessage({ t: 'stop' } satisfies ToSender);
      });
      await w.terminate();
    },
  };
}
