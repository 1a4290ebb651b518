// In-process transport: the same fastify app, reached through inject() — no socket, same pipeline.
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../contract/common.js';
import {
  connectionReset,
  flattenHeaders,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/** An app to inject into, or what gives the app for a path (`openInProcess`: routes registered as asked for). */
export type InProcessApp = FastifyInstance | { appFor(path: string): Promise<FastifyInstance> };

export class InProcessTransport implements Transport {
  readonly description = 'embedded test-mode server';

  constructor(
    private readonly app: InProcessApp,
    private readonly onClose?: () => Promise<void>,
  ) {}

  async send(req: TransportRequest): Promise<TransportResponse> {
    const app = 'appFor' in this.app ? await this.app.appFor(req.path) : this.app;
    const res = await app
      .inject({
        method: req.method as 'GET',
        url: API_PREFIX + req.path,
        headers: req.headers,
        payload: req.body,
        remoteAddress: '127.0.0.1',
      })
      .catch((err: { code?: string }) => {
        // The server closed the "connection" without an answer (a simulated reset): the failure a socket reset is.
        throw err?.code === 'LIGHT_ECONNRESET' ? connectionReset(this.description, err) : err;
      });
    return { status: res.statusCode, headers: flattenHeaders(res.headers), body: res.body };
  }

  async close(): Promise<void> {
    await this.onClose?.();
  }
}
