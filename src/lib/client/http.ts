// HTTP transport over node:http / node:https with a keep-alive agent: keep-alive pooling, per-attempt timeouts,
// connection errors surfaced as TransportFailure (retried by the client). Not undici: importing it alone would
// exceed the CLI's start-up budget for `sessions get --json`; node:http is already in the binary.
import * as http from 'node:http';
import type { IncomingMessage } from 'node:http';
import { parseBaseUrl } from './url.js';
import {
  connectionReset,
  flattenHeaders,
  TransportFailure,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/** The transport for `baseUrl`; node:https (TLS, a start-up cost) is loaded only for https URLs. */
export async function httpTransport(baseUrl: string): Promise<HttpTransport> {
  const secure = parseBaseUrl(baseUrl).protocol === 'https:';
  return new HttpTransport(baseUrl, secure ? await import('node:https') : http);
}

export class HttpTransport implements Transport {
  readonly description: string;
  private readonly url: URL;
  /** The base URL's path without trailing slashes ('' for none): requests go to prefix + path. */
  private readonly prefix: string;
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;

  /** `lib` is node:http, or node:https for an https base URL. */
  constructor(baseUrl: string, lib: Pick<typeof http, 'Agent' | 'request'>) {
    this.url = parseBaseUrl(baseUrl);
    this.prefix = this.url.pathname.replace(/\/+$/, '');
    this.description = this.url.origin + this.prefix;
    this.agent = new lib.Agent({ keepAlive: true, maxSockets: 64 });
    this.request = lib.request;
  }

  send(req: TransportRequest): Promise<TransportResponse> {
    // The request path is appended to the base path as text, never parsed as a URL: whatever it holds
    // (`//host/x`, `/127.0.0.1:4299/x`, `http://…`), the request goes to the configured origin.
    if (!req.path.startsWith('/') || /[\u0000-\u0020\u007f]/.test(req.path)) {
      return Promise.reject(
        new TypeError(
          `Request path must start with "/" and contain no spaces or control characters: ${JSON.stringify(req.path)}`,
        ),
      );
    }
    const target: http.RequestOptions = {
      protocol: this.url.protocol,
      hostname: this.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.url.port || undefined,
      path: this.prefix + req.path,
    };
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (message: string, timeout: boolean, cause?: unknown) =>
        failWith(new TransportFailure(message, timeout, cause));
      const failWith = (failure: TransportFailure) => {
        if (settled) return;
        settled = true;
        reject(failure);
      };
      const request = this.request(
        { ...target, method: req.method, headers, agent: this.agent, timeout: req.timeoutMs },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) =>
            fail(`connection to ${this.description} broke while reading the answer`, false, err),
          );
          res.on('end', () => {
            if (settled) return;
            settled = true;
            resolve({
              status: res.statusCode ?? 0,
              headers: flattenHeaders(res.headers),
              body: Buffer.concat(chunks).toString('utf8'),
            });
          });
        },
      );
      request.on('timeout', () => {
        fail(`no answer from ${this.description} within ${req.timeoutMs} ms`, true);
        request.destroy();
      });
      request.on('error', (err: NodeJS.ErrnoException) =>
        err.code === 'ECONNRESET'
          ? failWith(connectionReset(this.description, err))
          : fail(`cannot reach ${this.description}${err.code ? ` (${err.code})` : ''}`, false, err),
      );
      request.end(req.body);
    });
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}
