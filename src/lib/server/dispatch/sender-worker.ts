// The webhook sender's own thread: POSTs run here, so that a server busy answering requests does not slow its
// deliveries (a POST needs a turn of its thread's event loop for each step), and their CPU goes to the other
// core. It only sends: batches come from the dispatcher, which reads and writes the database (dispatcher.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { Sender, type SendBatch, type SendResult, type SenderConfig } from './sender.js';
import type { FromSender, ToSender } from './sender-link.js';

const data = workerData as Omit<SenderConfig, 'own'> & { own?: { port: number; shared: SharedArrayBuffer } };
const sender = new Sender({
  ...data,
  own: data.own ? { port: data.own.port, ports: new Uint8Array(data.own.shared) } : undefined,
});
const port = parentPort!;

let results: SendResult[] = [];
let done: string[] = [];
let timer: NodeJS.Timeout | undefined;
let immediate: NodeJS.Immediate | undefined;

/** Hands what is new to the dispatcher: at most every 20 ms while POSTs succeed, at once when a batch ends. */
function flush(): void {
  clearTimeout(timer);
  if (immediate) clearImmediate(immediate);
  timer = undefined;
  immediate = undefined;
  if (results.length === 0 && done.length === 0) return;
  const msg: FromSender = { t: 'progress', results, done };
  results = [];
  done = [];
  port.postMessage(msg);
}

port.on('message', (msg: ToSender) => {
  if (msg.t === 'batch') {
    const batch: SendBatch = msg.batch;
    sender.submit(
      batch,
      (r) => {
        results.push(r);
        timer ??= setTimeout(flush, 20);
      },
      () => {
        done.push(batch.endpoint);
        immediate ??= setImmediate(flush);
      },
    );
  } else if (msg.t === 'abort') {
    sender.abort(msg.endpoint);
  } else if (msg.t === 'stop') {
    sender.stop();
    flush();
    port.postMessage({ t: 'stopped' } satisfies FromSender);
  }
});
