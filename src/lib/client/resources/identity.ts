import type { List } from '../../contract/common.js';
import type {
  CreateIdentityTokenBody,
  CreateKycBody,
  DeletedIdentityToken,
  IdentityToken,
  IdentityTokenPage,
  KycVerification,
  ListIdentityTokensQuery,
  ListKycQuery,
  SubmitKycBody,
} from '../../contract/identity.js';
import { asQuery, enc, paginate, type CallOptions, type Requester } from './base.js';

export class IdentityTokensResource {
  constructor(private readonly c: Requester) {}

  /** Vaults a value; the answer carries only `masked_value`. */
  create(params: CreateIdentityTokenBody, options?: CallOptions): Promise<IdentityToken> {
    return this.c.request('POST', '/identity-tokens', { body: params, ...options });
  }

  retrieve(id: string, options?: CallOptions): Promise<IdentityToken> {
    return this.c.request('GET', `/identity-tokens/${enc(id)}`, options);
  }

  /** Offset pagination: `{data, pagination: {total, limit, offset, has_more}}`. */
  list(params: ListIdentityTokensQuery = {}, options?: CallOptions): Promise<IdentityTokenPage> {
    return this.c.request('GET', '/list-identity-tokens', { query: asQuery(params), ...options });
  }

  delete(id: string, options?: CallOptions): Promise<DeletedIdentityToken> {
    return this.c.request('DELETE', `/identity-tokens/${enc(id)}`, options);
  }
}

export class KycVerificationsResource {
  constructor(private readonly c: Requester) {}

  create(params: CreateKycBody, options?: CallOptions): Promise<KycVerification> {
    return this.c.request('POST', '/kyc-verifications', { body: params, ...options });
  }

  retrieve(id: string, options?: CallOptions): Promise<KycVerification> {
    return this.c.request('GET', `/kyc-verifications/${enc(id)}`, options);
  }

  list(params: ListKycQuery = {}, options?: CallOptions): Promise<List<KycVerification>> {
    return this.c.request('GET', '/kyc-verifications', { query: asQuery(params), ...options });
  }

  listAll(params: ListKycQuery = {}): AsyncGenerator<KycVerification> {
    return paginate((p) => this.list(p), params);
  }

  submit(id: string, params: SubmitKycBody = {}, options?: CallOptions): Promise<KycVerification> {
    return this.c.request('POST', `/kyc-verifications/${enc(id)}/submit`, { body: params, ...options });
  }

  cancel(id: string, options?: CallOptions): Promise<KycVerification> {
    return this.c.request('POST', `/kyc-verifications/${enc(id)}/cancel`, { body: {}, ...options });
  }
}
