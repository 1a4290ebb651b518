import type { List } from '../../contract/common.js';
import type {
  CancelSessionBody,
  CreateSessionBody,
  ListSessionsQuery,
  PaymentSession,
  UpdateSessionBody,
} from '../../contract/sessions.js';
import { asQuery, enc, paginate, type CallOptions, type Requester } from './base.js';

export class SessionsResource {
  constructor(private readonly c: Requester) {}

  create(params: CreateSessionBody, options?: CallOptions): Promise<PaymentSession> {
    return this.c.request('POST', '/create-session', { body: params, ...options });
  }

  retrieve(id: string, options?: CallOptions): Promise<PaymentSession> {
    return this.c.request('GET', `/sessions/${enc(id)}`, options);
  }

  update(id: string, params: UpdateSessionBody, options?: CallOptions): Promise<PaymentSession> {
    return this.c.request('PATCH', `/sessions/${enc(id)}`, { body: params, ...options });
  }

  cancel(id: string, params: CancelSessionBody = {}, options?: CallOptions): Promise<PaymentSession> {
    return this.c.request('POST', `/sessions/${enc(id)}/cancel`, { body: params, ...options });
  }

  list(params: ListSessionsQuery = {}, options?: CallOptions): Promise<List<PaymentSession>> {
    return this.c.request('GET', '/sessions', { query: asQuery(params), ...options });
  }

  /** Every session matching `params`, page after page. */
  listAll(params: ListSessionsQuery = {}): AsyncGenerator<PaymentSession> {
    return paginate((p) => this.list(p), params);
  }
}
