// Payments area routes: confirm, payments, 3DS, wallets, the test vault, session config, test values,
// processors (test helpers), bank accounts and network tokens. Handlers only call domain/payments.
import {
  BankAccount,
  BankAccountIdParams,
  BankAccountList,
  CapturePaymentBody,
  ConfirmPaymentBody,
  CreateBankAccountBody,
  CreateNetworkTokenBody,
  Cryptogram,
  CryptogramBody,
  ListBankAccountsQuery,
  ListPaymentsQuery,
  MerchantSession,
  MicrodepositResult,
  NetworkToken,
  NetworkTokenIdParams,
  Payment,
  PaymentIdParams,
  PaymentList,
  ProcessorsState,
  PspParams,
  RefundPaymentBody,
  UpdateBankAccountBody,
  SessionConfig,
  SessionIdOnly,
  SetProcessorBody,
  TestCardsList,
  ThreeDSResult,
  ValidateMerchantBody,
  ValidateMerchantSessionBody,
  VaultToken,
  VaultTokenBody,
  VerifyBankAccountBody,
  VerifyResult,
} from '../../contract/payments.js';
import { DeletedObject, EmptyBody, EmptyQuery } from '../../contract/common.js';
import { defineRoute, savedAsEvent, type RouteSpec } from '../http/route.js';
import { errors } from '../errors.js';
import { MAX_ATTEMPTS } from '../domain/payments/routing.js';
import { requestedSession } from '../domain/sessions.js';
import type { Services } from '../domain/services.js';
import { validateMerchant } from '../domain/payments/wallets.js';
import { testValues } from '../domain/payments/testvalues.js';

const tag = 'Payments';

/** A confirm answers the object of the payment's event (payment.captured, …); a status without one is saved as sent. */
const confirmedPayment = savedAsEvent(({ accountId, services }, id) => services.payments.get(accountId, id));

export const paymentsRoutes: RouteSpec[] = [
  defineRoute({
    method: 'POST',
    url: '/confirm-payment/:session_id',
    operationId: 'confirmPayment',
    summary: "Confirm a payment session with one payment source (bearer: the session's client_secret)",
    description:
      "Routes the payment to a processor (failover on retryable failures). A body `session_id`, if given, must be the path's. " +
      'Answers the payment: `captured` or `authorized`, `requires_action` with `next_action.redirect_to_url` for a 3DS challenge, ' +
      '`pending` for an ACH debit; a decline answers 402 `card_error` and the failed payment is kept.',
    tag,
    auth: 'client_secret',
    params: SessionIdOnly,
    body: ConfirmPaymentBody,
    response: Payment,
    errors: [402, 404, 409],
    saved: confirmedPayment,
    handler: ({ accountId, params, body, sessionId, now, baseUrl, services }) =>
      services.payments.confirm(
        accountId,
        requestedSession(params.session_id, body.session_id, sessionId),
        body,
        now,
        baseUrl,
      ),
  }),
  defineRoute({
    method: 'POST',
    url: '/confirm-payment',
    operationId: 'confirmPaymentBySessionInBody',
    summary:
      "Confirm a payment session named by `session_id` in the body, or by the client secret alone (the live service's browser SDK calls this form)",
    description:
      'The same confirmation as `POST /confirm-payment/{session_id}`, for the session `session_id` names. ' +
      "The bearer is that session's client secret, which names its session: without `session_id` the confirmation is for that session; " +
      'a `session_id` of another session → 401.',
    tag,
    auth: 'client_secret',
    body: ConfirmPaymentBody,
    response: Payment,
    errors: [402, 404, 409],
    saved: confirmedPayment,
    handler: ({ accountId, body, sessionId, now, baseUrl, services }) =>
      services.payments.confirm(accountId, requestedSession(undefined, body.session_id, sessionId), body, now, baseUrl),
  }),
  defineRoute({
    method: 'GET',
    url: '/payments',
    operationId: 'listPayments',
    summary: 'List payments, newest first',
    tag,
    auth: 'api_key',
    query: ListPaymentsQuery,
    response: PaymentList,
    handler: ({ accountId, query, path, services }) => services.payments.list(accountId, path, query),
  }),
  defineRoute({
    method: 'GET',
    url: '/payments/:payment_id',
    operationId: 'getPayment',
    summary: 'Retrieve a payment',
    tag,
    auth: 'api_key',
    params: PaymentIdParams,
    response: Payment,
    errors: [404],
    handler: ({ accountId, params, services }) => services.payments.get(accountId, params.payment_id),
  }),
  defineRoute({
    method: 'POST',
    url: '/capture-payment/:payment_id',
    operationId: 'capturePayment',
    summary: 'Capture an authorized payment (optionally a partial amount)',
    tag,
    auth: 'api_key',
    params: PaymentIdParams,
    body: CapturePaymentBody,
    response: Payment,
    errors: [404, 409],
    handler: ({ accountId, params, body, now, services }) =>
      services.payments.capture(accountId, params.payment_id, body, now),
  }),
  defineRoute({
    method: 'POST',
    url: '/refund-payment/:payment_id',
    operationId: 'refundPayment',
    summary: 'Refund a captured payment, fully or partly',
    tag,
    auth: 'api_key',
    params: PaymentIdParams,
    body: RefundPaymentBody,
    response: Payment,
    errors: [402, 404, 409],
    handler: ({ accountId, params, body, now, services }) =>
      services.payments.refund(accountId, params.payment_id, body, now),
  }),

  // 3DS
  defineRoute({
    method: 'POST',
    url: '/threeds-authenticate/sessions/:session_id/challenge-complete',
    operationId: 'completeThreeDSChallenge',
    summary: 'Complete the 3DS challenge of a session; the payment proceeds',
    tag: '3D Secure',
    auth: 'api_key_or_client_secret',
    params: SessionIdOnly,
    body: EmptyBody,
    response: ThreeDSResult,
    errors: [404, 409],
    handler: ({ accountId, params, now, services }) =>
      services.payments.threeds.complete(accountId, params.session_id, now),
  }),
  defineRoute({
    method: 'GET',
    url: '/threeds-authenticate/sessions/:session_id/result',
    operationId: 'getThreeDSResult',
    summary: 'The 3DS result of a session',
    tag: '3D Secure',
    auth: 'api_key_or_client_secret',
    params: SessionIdOnly,
    query: EmptyQuery,
    response: ThreeDSResult,
    errors: [404],
    handler: ({ accountId, params, services }) => services.payments.threeds.result(accountId, params.session_id),
  }),

  // Wallets
  defineRoute({
    method: 'POST',
    url: '/walletone-pay-validate-merchant',
    operationId: 'validateWalletMerchant',
    summary: 'Validate the merchant for a walletone_pay payment sheet (validation_url is never fetched)',
    description:
      "The API key, or the client secret of the session `session_id` names (the live service's browser form: a secret of another " +
      'session → 401).',
    tag: 'Wallets',
    auth: 'api_key_or_client_secret',
    body: ValidateMerchantBody,
    response: MerchantSession,
    errors: [404],
    handler: async ({ accountId, body, sessionId, now, services }) =>
      validateMerchant(
        await services.sessions.current(accountId, requestedSession(undefined, body.session_id, sessionId), now),
        body,
        now,
      ),
  }),
  defineRoute({
    method: 'POST',
    url: '/walletone-pay-validate-merchant/:session_id',
    operationId: 'validateWalletMerchantForSession',
    summary: "As above, for a frontend: the session in the path, bearer the API key or the session's client_secret",
    tag: 'Wallets',
    auth: 'api_key_or_client_secret',
    params: SessionIdOnly,
    body: ValidateMerchantSessionBody,
    response: MerchantSession,
    errors: [404],
    handler: async ({ accountId, params, body, now, services }) =>
      validateMerchant(
        await services.sessions.current(accountId, params.session_id, now),
        { ...body, session_id: params.session_id },
        now,
      ),
  }),

  // Test vault, checkout-page config, test values
  defineRoute({
    method: 'POST',
    url: '/vault/tokens',
    operationId: 'createVaultToken',
    summary: 'Test tokenization vault: card data in, token out (raw card data is never stored or logged)',
    tag: 'Test vault',
    auth: 'none',
    body: VaultTokenBody,
    response: VaultToken,
    status: 201,
    handler: ({ body, now, services }) => services.cards.tokenize(body, now),
  }),
  ...sessionConfigRoutes(),
  defineRoute({
    method: 'GET',
    url: '/test-cards',
    operationId: 'listTestValues',
    summary: 'The test cards, wallet tokens and ACH accounts of the local processors',
    tag: 'Test helpers',
    auth: 'none',
    query: EmptyQuery,
    response: TestCardsList,
    handler: () => testValues(),
  }),
  defineRoute({
    method: 'GET',
    url: '/test-helpers/processors',
    operationId: 'getProcessors',
    summary: 'The processors (up or down) and the routing rules in force',
    tag: 'Test helpers',
    auth: 'api_key',
    query: EmptyQuery,
    response: ProcessorsState,
    handler: ({ services, accountId }) => ({
      object: 'processors',
      processors: services.processors.state(accountId),
      routing: services.routing,
      max_attempts: MAX_ATTEMPTS,
    }),
  }),
  defineRoute({
    method: 'POST',
    url: '/test-helpers/processors/:psp',
    operationId: 'setProcessorStatus',
    summary: "Mark a processor down (or up again) for the key's account, through every process of the server",
    tag: 'Test helpers',
    auth: 'api_key',
    params: PspParams,
    body: SetProcessorBody,
    response: ProcessorsState,
    errors: [404],
    handler: async ({ params, body, services, accountId }) => {
      if (!services.processors.has(params.psp)) throw errors.notFound('processor', params.psp, 'psp');
      await services.processors.setDown(accountId, params.psp, body.status === 'down');
      return {
        object: 'processors',
        processors: services.processors.state(accountId),
        routing: services.routing,
        max_attempts: MAX_ATTEMPTS,
      };
    },
  }),

  // Bank accounts (contract §8)
  defineRoute({
    method: 'POST',
    url: '/bank-accounts',
    operationId: 'createBankAccount',
    summary: 'Create an ACH bank account (numbers sealed at rest, never returned)',
    tag: 'Bank accounts',
    auth: 'api_key',
    body: CreateBankAccountBody,
    response: BankAccount,
    status: 201,
    handler: ({ accountId, body, now, services }) => services.bankAccounts.create(accountId, body, now),
  }),
  defineRoute({
    method: 'GET',
    url: '/bank-accounts',
    operationId: 'listBankAccounts',
    summary: 'List bank accounts, newest first',
    tag: 'Bank accounts',
    auth: 'api_key',
    query: ListBankAccountsQuery,
    response: BankAccountList,
    handler: ({ accountId, query, path, services }) => services.bankAccounts.list(accountId, path, query),
  }),
  defineRoute({
    method: 'GET',
    url: '/bank-accounts/:bank_account_id',
    operationId: 'getBankAccount',
    summary: 'Retrieve a bank account',
    tag: 'Bank accounts',
    auth: 'api_key',
    params: BankAccountIdParams,
    response: BankAccount,
    errors: [404],
    handler: ({ accountId, params, services }) => services.bankAccounts.get(accountId, params.bank_account_id),
  }),
  defineRoute({
    method: 'PATCH',
    url: '/bank-accounts/:bank_account_id',
    operationId: 'updateBankAccount',
    summary: 'Update a bank account: nickname, is_default (one per customer), metadata',
    tag: 'Bank accounts',
    auth: 'api_key',
    params: BankAccountIdParams,
    body: UpdateBankAccountBody,
    response: BankAccount,
    errors: [404],
    handler: ({ accountId, params, body, now, services }) =>
      services.bankAccounts.update(accountId, params.bank_account_id, body, now),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/bank-accounts/:bank_account_id',
    operationId: 'deleteBankAccount',
    summary: 'Delete a bank account',
    tag: 'Bank accounts',
    auth: 'api_key',
    params: BankAccountIdParams,
    response: DeletedObject('bank_account'),
    errors: [404],
    handler: ({ accountId, params, now, services }) =>
      services.bankAccounts.delete(accountId, params.bank_account_id, now),
  }),
  defineRoute({
    method: 'POST',
    url: '/bank-accounts/:bank_account_id/initiate-microdeposits',
    operationId: 'initiateMicrodeposits',
    summary: 'Send micro-deposits (test mode: 32 and 45 cents)',
    tag: 'Bank accounts',
    auth: 'api_key',
    params: BankAccountIdParams,
    body: EmptyBody,
    response: MicrodepositResult,
    errors: [404, 409],
    handler: ({ accountId, params, now, services }) =>
      services.bankAccounts.initiateMicrodeposits(accountId, params.bank_account_id, now),
  }),
  defineRoute({
    method: 'POST',
    url: '/bank-accounts/:bank_account_id/verify',
    operationId: 'verifyBankAccount',
    summary: 'Verify the two micro-deposit amounts (cents)',
    tag: 'Bank accounts',
    auth: 'api_key',
    params: BankAccountIdParams,
    body: VerifyBankAccountBody,
    response: VerifyResult,
    errors: [404, 409],
    handler: ({ accountId, params, body, now, services }) =>
      services.bankAccounts.verify(accountId, params.bank_account_id, body.amounts, now),
  }),

  // Network tokens
  defineRoute({
    method: 'POST',
    url: '/network-tokens',
    operationId: 'createNetworkToken',
    summary: 'Create a network token from a card token',
    description:
      "With `request_cryptogram: true` the answer carries a first cryptogram. A browser may call it with a session's client secret " +
      '(then `session_id`, if given, must be that session), as at the live service.',
    tag: 'Network tokens',
    auth: 'api_key_or_client_secret',
    body: CreateNetworkTokenBody,
    response: NetworkToken,
    status: 201,
    errors: [404],
    handler: async ({ accountId, body, sessionId, now, services }) => {
      await sessionNamed(body.session_id, sessionId, accountId, now, services);
      return services.cards.createNetworkToken(accountId, body.token_id, now, body.request_cryptogram ?? false);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/network-tokens/:network_token_id',
    operationId: 'getNetworkToken',
    summary: 'Retrieve a network token',
    tag: 'Network tokens',
    auth: 'api_key',
    params: NetworkTokenIdParams,
    response: NetworkToken,
    errors: [404],
    handler: ({ accountId, params, services }) => services.cards.getNetworkToken(accountId, params.network_token_id),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/network-tokens/:network_token_id',
    operationId: 'deleteNetworkToken',
    summary: 'Delete a network token',
    tag: 'Network tokens',
    auth: 'api_key',
    params: NetworkTokenIdParams,
    response: DeletedObject('network_token'),
    errors: [404],
    handler: ({ accountId, params, now, services }) =>
      services.cards.deleteNetworkToken(accountId, params.network_token_id, now),
  }),
  defineRoute({
    method: 'POST',
    url: '/network-tokens/:network_token_id/cryptogram',
    operationId: 'createNetworkTokenCryptogram',
    summary: 'A one-time cryptogram for a network token',
    description:
      "The API key, or a session's client secret (then `session_id`, if given, must be that session), as at the live service.",
    tag: 'Network tokens',
    auth: 'api_key_or_client_secret',
    params: NetworkTokenIdParams,
    body: CryptogramBody,
    response: Cryptogram,
    errors: [404],
    handler: async ({ accountId, params, body, sessionId, now, services }) => {
      await sessionNamed(body.session_id, sessionId, accountId, now, services);
      return services.cards.cryptogram(accountId, params.network_token_id, now);
    },
  }),
];

/**
 * A `session_id` in a body next to the bearer: with a client secret it must be the secret's session (else 401,
 * as a secret acts for its own session only); with the API key it must be a session of the account (else 404).
 */
async function sessionNamed(
  bodyId: string | undefined,
  authenticated: string | undefined,
  accountId: string,
  now: number,
  services: Services,
): Promise<void> {
  if (authenticated !== undefined) requestedSession(undefined, bodyId, authenticated);
  else if (bodyId !== undefined) await services.sessions.get(accountId, bodyId);
}

/**
 * The session config, in the four forms clients use: GET (a checkout page, the live service's e-commerce
 * plugin) or POST (the live service's browser SDK), with the session in the path, or without it for a client
 * secret, which names its own session.
 */
function sessionConfigRoutes(): RouteSpec[] {
  const description =
    'Amount, currency, the payment methods and their wallet settings, the URLs, and the latest payment (with its `next_action`). ' +
    'Every session status answers 200.';
  const withId = (method: 'GET' | 'POST') =>
    defineRoute({
      method,
      url: '/get-session-config/:session_id',
      operationId: method === 'GET' ? 'getSessionConfig' : 'getSessionConfigByPost',
      summary: 'What a checkout page needs to render a session (bearer: API key or the client_secret)',
      description,
      tag,
      auth: 'api_key_or_client_secret',
      params: SessionIdOnly,
      ...(method === 'GET' ? { query: EmptyQuery } : { body: EmptyBody }),
      response: SessionConfig,
      errors: [404],
      handler: ({ accountId, params, now, baseUrl, services }) =>
        services.payments.sessionConfig(accountId, params.session_id, now, baseUrl),
    });
  const bySecret = (method: 'GET' | 'POST') =>
    defineRoute({
      method,
      url: '/get-session-config',
      operationId: method === 'GET' ? 'getSessionConfigForClientSecret' : 'getSessionConfigForClientSecretByPost',
      summary: 'The config of the session whose client secret is the bearer (no session id needed)',
      description: `${description} The client secret names its session, so only it can be the bearer here.`,
      tag,
      auth: 'client_secret',
      ...(method === 'GET' ? { query: EmptyQuery } : { body: EmptyBody }),
      response: SessionConfig,
      errors: [404],
      handler: ({ accountId, sessionId, now, baseUrl, services }) =>
        services.payments.sessionConfig(accountId, sessionId!, now, baseUrl),
    });
  return [withId('GET'), withId('POST'), bySecret('GET'), bySecret('POST')];
}
