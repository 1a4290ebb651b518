// In-process transport: the same fastify app, reached through inject() — no socket, same pipeline.
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../contract/common.js';
import { connectionReset, flattenHeaders, type Transport, type TransportRequest, type TransportResponse } from './transport.js';

export class InProcessTransport implements Transport {
  readonly description = 'embedded test-mode server';

  constructor(private readonly app: FastifyInstance, private readonly onClose?: () => Promise<void>) {}

  async send(req: TransportRequest): Promise<TransportResponse> {
    const res = await this.app
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
