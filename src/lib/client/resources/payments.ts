// Client resources of the payments area: payments (confirm/capture/refund), 3DS, wallets, the test vault,
// bank accounts, network tokens and test helpers (processors, test values).
import type { List } from '../../contract/common.js';
import type {
  BankAccount,
  CapturePaymentBody,
  ConfirmPaymentBody,
  CreateBankAccountBody,
  Cryptogram,
  ListBankAccountsQuery,
  ListPaymentsQuery,
  MerchantSession,
  MicrodepositResult,
  NetworkToken,
  Payment,
  ProcessorsState,
  RefundPaymentBody,
  SessionConfig,
  TestCardsList,
  ThreeDSResult,
  ValidateMerchantBody,
  VaultToken,
  VaultTokenBody,
  VerifyResult,
} from '../../contract/payments.js';
import { asQuery, enc, paginate, type CallOptions, type Requester } from './base.js';
import type { RequestOptions } from '../request.js';

type Bearer = Pick<RequestOptions, 'bearer'>;

export class PaymentsResource {
  constructor(private readonly c: Requester) {}

  /** Confirms a session; authenticated with the session's client secret (`clientSecret`). */
  confirm(
    sessionId: string,
    clientSecret: string,
    params: ConfirmPaymentBody,
    options?: CallOptions,
  ): Promise<Payment> {
    return this.c.request('POST', `/confirm-payment/${enc(sessionId)}`, {
      body: params,
      bearer: clientSecret,
      ...options,
    });
  }

  retrieve(id: string, options?: CallOptions): Promise<Payment> {
    return this.c.request('GET', `/payments/${enc(id)}`, options);
  }

  list(params: ListPaymentsQuery = {}, options?: CallOptions): Promise<List<Payment>> {
    return this.c.request('GET', '/payments', { query: asQuery(params), ...options });
  }

  listAll(params: ListPaymentsQuery = {}): AsyncGenerator<Payment> {
    return paginate((p) => this.list(p), params);
  }

  capture(id: string, params: CapturePaymentBody = {}, options?: CallOptions): Promise<Payment> {
    return this.c.request('POST', `/capture-payment/${enc(id)}`, { body: params, ...options });
  }

  refund(id: string, params: RefundPaymentBody = {}, options?: CallOptions): Promise<Payment> {
    return this.c.request('POST', `/refund-payment/${enc(id)}`, { body: params, ...options });
  }

  /** What a checkout page needs (API key, or the session's client secret via `bearer`). */
  sessionConfig(sessionId: string, options?: CallOptions & Bearer): Promise<SessionConfig> {
    return this.c.request('GET', `/get-session-config/${enc(sessionId)}`, options);
  }
}

export class ThreeDSResource {
  constructor(private readonly c: Requester) {}

  complete(sessionId: string, options?: CallOptions & Bearer): Promise<ThreeDSResult> {
    return this.c.request('POST', `/threeds-authenticate/sessions/${enc(sessionId)}/challenge-complete`, options); // no body
  }

  result(sessionId: string, options?: CallOptions & Bearer): Promise<ThreeDSResult> {
    return this.c.request('GET', `/threeds-authenticate/sessions/${enc(sessionId)}/result`, options);
  }
}

export class WalletsResource {
  constructor(private readonly c: Requester) {}

  validateMerchant(params: ValidateMerchantBody, options?: CallOptions): Promise<MerchantSession> {
    return this.c.request('POST', '/walletone-pay-validate-merchant', { body: params, ...options });
  }
}

export class VaultResource {
  constructor(private readonly c: Requester) {}

  /** Test vault: card data → token. The card number goes only to this endpoint. */
  tokenize(params: VaultTokenBody, options?: CallOptions): Promise<VaultToken> {
    return this.c.request('POST', '/vault/tokens', { body: params, ...options });
  }
}

export class BankAccountsResource {
  constructor(private readonly c: Requester) {}

  create(params: CreateBankAccountBody, options?: CallOptions): Promise<BankAccount> {
    return this.c.request('POST', '/bank-accounts', { body: params, ...options });
  }

  retrieve(id: string, options?: CallOptions): Promise<BankAccount> {
    return this.c.request('GET', `/bank-accounts/${enc(id)}`, options);
  }

  list(params: ListBankAccountsQuery = {}, options?: CallOptions): Promise<List<BankAccount>> {
    return this.c.request('GET', '/bank-accounts', { query: asQuery(params), ...options });
  }

  listAll(params: ListBankAccountsQuery = {}): AsyncGenerator<BankAccount> {
    return paginate((p) => this.list(p), params);
  }

  delete(id: string, options?: CallOptions): Promise<{ id: string; object: 'bank_account'; deleted: true }> {
    return this.c.request('DELETE', `/bank-accounts/${enc(id)}`, options);
  }

  initiateMicrodeposits(id: string, options?: CallOptions): Promise<MicrodepositResult> {
    return this.c.request('POST', `/bank-accounts/${enc(id)}/initiate-microdeposits`, options); // no body
  }

  verify(id: string, amounts: number[], options?: CallOptions): Promise<VerifyResult> {
    return this.c.request('POST', `/bank-accounts/${enc(id)}/verify`, { body: { amounts }, ...options });
  }
}

export class NetworkTokensResource {
  constructor(private readonly c: Requester) {}

  create(tokenId: string, options?: CallOptions): Promise<NetworkToken> {
    return this.c.request('POST', '/network-tokens', { body: { token_id: tokenId }, ...options });
  }

  retrieve(id: string, options?: CallOptions): Promise<NetworkToken> {
    return this.c.request('GET', `/network-tokens/${enc(id)}`, options);
  }

  delete(id: string, options?: CallOptions): Promise<{ id: string; object: 'network_token'; deleted: true }> {
    return this.c.request('DELETE', `/network-tokens/${enc(id)}`, options);
  }

  cryptogram(id: string, options?: CallOptions): Promise<Cryptogram> {
    return this.c.request('POST', `/network-tokens/${enc(id)}/cryptogram`, { body: {}, ...options });
  }
}

export class ProcessorsResource {
  constructor(private readonly c: Requester) {}

  state(options?: CallOptions): Promise<ProcessorsState> {
    return this.c.request('GET', '/test-helpers/processors', options);
  }

  setStatus(psp: string, status: 'up' | 'down', options?: CallOptions): Promise<ProcessorsState> {
    return this.c.request('POST', `/test-helpers/processors/${enc(psp)}`, { body: { status }, ...options });
  }

  testValues(options?: CallOptions): Promise<TestCardsList> {
    return this.c.request('GET', '/test-cards', options);
  }
}
