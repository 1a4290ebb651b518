// One webhook POST over node:http(s): bounded in time (the whole exchange, connect included), in what it reads
// back (the response body is read and discarded up to a small cap, so that the connection can be reused), and
// stoppable (an abort signal: the server is closing). Never throws: the outcome is a status or an error text.
import http from 'node:http';
import https from 'node:https';
import type { AttemptOutcome } from './deliveries.js';

/** Response bytes read (and discarded) at most; past this the connection is dropped. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** The longest error text kept on a delivery. */
const MAX_ERROR_CHARS = 300;

export interface SendOptions {
  timeoutMs: number;
  signal: AbortSignal;
  agents: { http: http.Agent; https: https.Agent };
}

export function newAgents(maxSockets: number): SendOptions['agents'] {
  return { http: new http.Agent({ keepAlive: true, maxSockets }), https: new https.Agent({ keepAlive: true, maxSockets }) };
}

export function postJson(url: string, body: string, headers: Record<string, string>, opts: SendOptions): Promise<AttemptOutcome> {
  return new Promise<AttemptOutcome>((resolve) => {
    let done = false;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      resolve({ error: 'the endpoint URL is not valid' });
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
      opts.signal.removeEventListener('abort', onAbort);
      if (outcome.error) outcome.error = outcome.error.slice(0, MAX_ERROR_CHARS);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      finish({ error: `timed out after ${opts.timeoutMs} ms` });
      req.destroy();
    }, opts.timeoutMs);
    timer.unref();
    const onAbort = () => {
      finish({ error: 'aborted: the server is stopping' });
      clearTimeout(timer);
      req.destroy();
    };
    if (opts.signal.aborted) {
      onAbort();
      return;
    }
    opts.signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => {
      clearTimeout(timer);
      finish({ error: err.message || String(err) });
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) {
          clearTimeout(timer);
          finish({ status });
          res.destroy();
        }
      });
      const end = () => {
        clearTimeout(timer);
        finish({ status });
      };
      res.on('end', end);
      res.on('error', end);
      res.on('close', end);
    });
    req.end(body);
  });
}
