// HTTP transport over undici (keep-alive pool per origin).
import { Agent, request, errors as undiciErrors } from 'undici';
import { flattenHeaders, TransportFailure, type Transport, type TransportRequest, type TransportResponse } from './transport.js';

export class HttpTransport implements Transport {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
  readonly description: string;

  constructor(private readonly baseUrl: string) {
    this.description = baseUrl;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const url = this.baseUrl.replace(/\/+$/, '') + req.path;
    try {
      const res = await request(url, {
        method: req.method as 'GET',
        headers: req.headers,
        body: req.body,
        dispatcher: this.agent,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      const body = await res.body.text();
      return { status: res.statusCode, headers: flattenHeaders(res.headers), body };
    } catch (err) {
      const timeout =
        err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError;
      const code = (err as { code?: string }).code;
      throw new TransportFailure(
        timeout ? `no answer from ${this.baseUrl} within ${req.timeoutMs} ms` : `cannot reach ${this.baseUrl}${code ? ` (${code})` : ''}`,
        timeout,
        err,
      );
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
