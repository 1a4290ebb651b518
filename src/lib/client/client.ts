// The embedded API client: bearer auth, an Idempotency-Key on every POST/PATCH/DELETE (reused across its
// retries), retries with jittered exponential backoff on 429 (honouring Retry-After), 5xx, 409
// idempotency_key_in_use and connection failures, per-attempt timeouts, and typed errors. A change sent without
// an Idempotency-Key is retried only where it cannot have run (429, a connection refused).
import type { ErrorBody } from '../contract/common.js';
import { DEFAULT_BASE_URL } from '../contract/prefix.js';

export { DEFAULT_BASE_URL } from '../contract/prefix.js';
import {
  ApiError,
  ConnectionError,
  ProtocolError,
  SimulateWithLiveKeyError,
  TimeoutError,
  UnsendableRequestError,
} from './errors.js';
import { isLiveKey } from '../contract/keys.js';
import { SIMULATE_HEADER_LC } from '../contract/simulate.js';
import { TransportFailure, type Transport, type TransportRequest, type TransportResponse } from './transport.js';
import { SessionsResource } from './resources/sessions.js';
import { HoldsResource, JournalEntriesResource, LedgerAccountsResource } from './resources/ledger.js';
import { IdentityTokensResource, KycVerificationsResource } from './resources/identity.js';
import {
  BankAccountsResource,
  NetworkTokensResource,
  PaymentsResource,
  ProcessorsResource,
  ThreeDSResource,
  VaultResource,
  WalletsResource,
} from './resources/payments.js';
import * as billing from './resources/billing.js';
import { EventListenersResource, EventsResource, TriggersResource } from './resources/events.js';
import { WebhookEndpointsResource } from './resources/webhooks.js';
import { RequestLogResource } from './resources/logs.js';
import { SnapshotsResource } from './resources/snapshots.js';
import { FaultRulesResource } from './resources/faults.js';
import type { QueryValue, RequestOptions } from './request.js';

export type { QueryValue, RequestOptions } from './request.js';

export interface ClientOptions {
  /** `sk_test_…` (or a session's client secret for confirm-style calls). */
  apiKey?: string;
  /** `http://127.0.0.1:4242/functions/v1`. Ignored when `transport` is given. */
  baseUrl?: string;
  transport?: Transport;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Per-attempt timeout in ms (default 30 000). */
  timeoutMs?: number;
  /**
   * Budget in ms for a whole call, retries and waits between them included (default: none, so up to
   * (maxRetries + 1) × timeoutMs plus backoff). Each attempt gets at most what is left; a wait that would
   * overrun it is not started.
   */
  deadlineMs?: number;
  /** Called with each request just before it is sent (each attempt): for logging and tests. */
  onRequest?: (req: TransportRequest) => void;
  /** Base of the exponential backoff in ms (default 500). */
  retryBaseMs?: number;
  /** Longest wait the client accepts between attempts, incl. Retry-After (default 20 000 ms). */
  maxRetryDelayMs?: number;
  userAgent?: string;
  /**
   * Test mode's fault injection (docs/api.md "Fault injection"): a `Payorch-Simulate` fault (`status=503`,
   * `after_commit=reset`, …) sent with the first attempt of every call, so that each call rehearses the fault and
   * the client's recovery from it (its retries go out clean). Refused with a live key (SimulateWithLiveKeyError).
   */
  simulate?: string;
}

/** A raw response (for `payorch api`): status, headers and the parsed body, errors included. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) sp.append(k.endsWith('[]') ? k : `${k}[]`, String(item));
    else sp.append(k, String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Client {
  readonly sessions: SessionsResource;
  readonly ledgerAccounts: LedgerAccountsResource;
  readonly journalEntries: JournalEntriesResource;
  readonly holds: HoldsResource;
  readonly identityTokens: IdentityTokensResource;
  readonly kycVerifications: KycVerificationsResource;
  // payments area
  readonly payments: PaymentsResource;
  readonly threeds: ThreeDSResource;
  readonly wallets: WalletsResource;
  readonly vault: VaultResource;
  readonly bankAccounts: BankAccountsResource;
  readonly networkTokens: NetworkTokensResource;
  readonly processors: ProcessorsResource;
  readonly customers: billing.CustomersResource;
  readonly products: billing.ProductsResource;
  readonly prices: billing.PricesResource;
  readonly coupons: billing.CouponsResource;
  readonly subscriptions: billing.SubscriptionsResource;
  readonly subscriptionItems: billing.SubscriptionItemsResource;
  readonly usageRecords: billing.UsageRecordsResource;
  readonly invoices: billing.InvoicesResource;
  readonly checkoutSessions: billing.CheckoutSessionsResource;
  readonly portalSessions: billing.PortalSessionsResource;
  readonly testClock: billing.TestClockResource;
  readonly events: EventsResource;
  readonly eventListeners: EventListenersResource;
  readonly webhookEndpoints: WebhookEndpointsResource;
  readonly testHelpers: TriggersResource;
  readonly requestLog: RequestLogResource;
  readonly snapshots: SnapshotsResource;
  readonly faultRules: FaultRulesResource;
  private transportPromise?: Promise<Transport>;
  private readonly opts: Required<Pick<ClientOptions, 'maxRetries' | 'timeoutMs' | 'retryBaseMs' | 'maxRetryDelayMs'>> &
    ClientOptions;

  constructor(options: ClientOptions = {}) {
    this.opts = { maxRetries: 2, timeoutMs: 30_000, retryBaseMs: 500, maxRetryDelayMs: 20_000, ...options };
    if (options.transport) this.transportPromise = Promise.resolve(options.transport);
    this.sessions = new SessionsResource(this);
    this.ledgerAccounts = new LedgerAccountsResource(this);
    this.journalEntries = new JournalEntriesResource(this);
    this.holds = new HoldsResource(this);
    this.identityTokens = new IdentityTokensResource(this);
    this.kycVerifications = new KycVerificationsResource(this);
    this.payments = new PaymentsResource(this);
    this.threeds = new ThreeDSResource(this);
    this.wallets = new WalletsResource(this);
    this.vault = new VaultResource(this);
    this.bankAccounts = new BankAccountsResource(this);
    this.networkTokens = new NetworkTokensResource(this);
    this.processors = new ProcessorsResource(this);
    this.customers = new billing.CustomersResource(this);
    this.products = new billing.ProductsResource(this);
    this.prices = new billing.PricesResource(this);
    this.coupons = new billing.CouponsResource(this);
    this.subscriptions = new billing.SubscriptionsResource(this);
    this.subscriptionItems = new billing.SubscriptionItemsResource(this);
    this.usageRecords = new billing.UsageRecordsResource(this);
    this.invoices = new billing.InvoicesResource(this);
    this.checkoutSessions = new billing.CheckoutSessionsResource(this);
    this.portalSessions = new billing.PortalSessionsResource(this);
    this.testClock = new billing.TestClockResource(this);
    this.events = new EventsResource(this);
    this.eventListeners = new EventListenersResource(this);
    this.webhookEndpoints = new WebhookEndpointsResource(this);
    this.testHelpers = new TriggersResource(this);
    this.requestLog = new RequestLogResource(this);
    this.snapshots = new SnapshotsResource(this);
    this.faultRules = new FaultRulesResource(this);
  }

  /** Where requests go: the base URL or "embedded test-mode server". */
  get baseUrl(): string {
    return this.opts.transport?.description ?? this.opts.baseUrl ?? DEFAULT_BASE_URL;
  }

  private transport(): Promise<Transport> {
    // The HTTP transport is loaded only when the first HTTP request is made.
    this.transportPromise ??= import('./http.js').then((m) => m.httpTransport(this.opts.baseUrl ?? DEFAULT_BASE_URL));
    return this.transportPromise;
  }

  /** Sends a request and returns the parsed success body; failures throw ApiError/ConnectionError. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, options);
    if (res.status >= 400) throw new ApiError(res.status, res.body as ErrorBody, res.headers);
    return res.body as T;
  }

  /** Sends a request (with retries) and returns status, headers and body whatever the status. */
  async raw(method: string, path: string, options: RequestOptions = {}): Promise<RawResponse> {
    return this.send(method, path, options);
  }

  private async send(method: string, path: string, options: RequestOptions): Promise<RawResponse> {
    method = method.toUpperCase();
    const transport = await this.transport();
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.opts.userAgent ?? 'payorch-client',
    };
    const bearer = options.bearer ?? this.opts.apiKey;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    const simulate = options.simulate === false ? undefined : (options.simulate ?? this.opts.simulate);
    if (simulate !== undefined && (isLiveKey(bearer) || isLiveKey(this.opts.apiKey)))
      throw new SimulateWithLiveKeyError();
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    // node:crypto is loaded only for requests that carry an Idempotency-Key (a GET does not pay its load).
    if (method !== 'GET' && method !== 'HEAD' && options.idempotencyKey !== false)
      headers['idempotency-key'] = options.idempotencyKey ?? (await import('node:crypto')).randomUUID();
    // A path that already has a query string (`payorch api GET '/sessions?limit=2' --query status=…`) gets the
    // parameters after an `&`, not a second `?`.
    const query = encodeQuery(options.query);
    const fullPath = query && path.includes('?') ? `${path}&${query.slice(1)}` : path + query;
    unsendable(simulate === undefined ? headers : { ...headers, [SIMULATE_HEADER_LC]: simulate }, fullPath);
    // A change without a key may have run when no answer (or a 5xx) came back: sent again, it could run twice.
    const unkeyed = method !== 'GET' && method !== 'HEAD' && headers['idempotency-key'] === undefined;
    const maxRetries = options.maxRetries ?? this.opts.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.opts.timeoutMs;
    const deadlineMs = options.deadlineMs ?? this.opts.deadlineMs;
    const deadline = deadlineMs === undefined ? Infinity : Date.now() + deadlineMs;
    const left = () => deadline - Date.now();

    for (let attempt = 0; ; attempt++) {
      let res: TransportResponse;
      try {
        const sent = attempt === 0 && simulate !== undefined ? { ...headers, [SIMULATE_HEADER_LC]: simulate } : headers;
        const req: TransportRequest = {
          method,
          path: fullPath,
          headers: sent,
          body,
          timeoutMs: Math.max(1, Math.min(timeoutMs, left())),
        };
        this.opts.onRequest?.(req);
        res = await transport.send(req);
      } catch (err) {
        if (!(err instanceof TransportFailure)) throw err;
        const wait = this.backoff(attempt);
        const mayRetry = !unkeyed || (err.cause as NodeJS.ErrnoException | undefined)?.code === 'ECONNREFUSED';
        if (mayRetry && attempt < maxRetries && wait < left()) {
          await sleep(wait);
          continue;
        }
        const E = err.timeout ? TimeoutError : ConnectionError;
        throw new E(
          `${err.message} (after ${attempt + 1} attempt${attempt ? 's' : ''})`,
          transport.description,
          err.cause,
        );
      }
      let parsed: unknown;
      try {
        parsed = res.body === '' ? undefined : JSON.parse(res.body);
      } catch {
        throw new ProtocolError(`The server answered ${res.status} with a body that is not JSON.`, res.status);
      }
      if (res.status >= 400 && !(parsed && typeof parsed === 'object' && 'error' in parsed)) {
        throw new ProtocolError(`The server answered ${res.status} without the API's error body.`, res.status);
      }
      const retryable = unkeyed
        ? res.status === 429
        : RETRYABLE_STATUS.has(res.status) ||
          (res.status === 409 && (parsed as ErrorBody).error?.code === 'idempotency_key_in_use');
      if (retryable && attempt < maxRetries) {
        const retryAfter = Number(res.headers['retry-after']);
        const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : this.backoff(attempt);
        if (delay <= this.opts.maxRetryDelayMs && delay < left()) {
          await sleep(delay);
          continue;
        }
      }
      return { status: res.status, headers: res.headers, body: parsed };
    }
  }

  /** Full-jitter exponential backoff. */
  private backoff(attempt: number): number {
    const cap = Math.min(this.opts.maxRetryDelayMs, this.opts.retryBaseMs * 2 ** attempt);
    return cap / 2 + Math.random() * (cap / 2);
  }

  async close(): Promise<void> {
    if (this.transportPromise) await (await this.transportPromise).close?.();
  }
}

/** Characters no header value may carry (HTTP field values: tab, visible ASCII, obs-text). */
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** Characters a request target must not hold unencoded (what node:http refuses). */
const BAD_PATH = /[^\u0021-\u00ff]/;

/** Throws UnsendableRequestError for what node:http would refuse to send, naming it without repeating it. */
function unsendable(headers: Record<string, string>, path: string): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!BAD_HEADER_VALUE.test(value)) continue;
    if (name === 'authorization')
      throw new UnsendableRequestError(
        'api_key',
        'The API key holds a line break or another character a header cannot carry; check how it was copied.',
      );
    throw new UnsendableRequestError(
      'header',
      `The ${name === 'idempotency-key' ? 'Idempotency-Key' : name} holds a line break or another character a header cannot carry.`,
    );
  }
  if (BAD_PATH.test(path))
    throw new UnsendableRequestError(
      'path',
      'The request path holds a space, a control or a non-Latin-1 character; percent-encode it.',
    );
}
