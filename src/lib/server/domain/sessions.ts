// Payment sessions: creation, update, cancel, expiry (docs/api.md "Payment sessions"). The state machine lives here.
import type {
  CancelSessionBody,
  CreateSessionBody,
  ListSessionsQuery,
  PaymentSession,
  SessionStatus,
  UpdateSessionBody,
} from '../../contract/sessions.js';
import type { List } from '../../contract/common.js';
import type { Documents, Owned } from '../store/seam.js';
import { clientSecretFrom, clientSecretNaming, clientSecretParts, newUuid, SECRET_MAC_BYTES } from '../ids.js';
import { isoTime, unixSeconds } from '../clock.js';
import { macsEqual, sha256, secretsEqual, type Sealer } from '../crypto.js';
import { errors } from '../errors.js';
import { checkHttpUrl, normalizeCurrency, mergeMetadata } from './values.js';
import type { DueSets, DueWork } from './due.js';
import type { Hooks, SessionPayment, SessionPaymentQuery } from './hooks.js';
import { withJsonText } from './json.js';
import { previousAttributes, type EventRecord, type Events } from './events.js';
import { hostedLinks } from './links.js';
import type { EventType } from '../../contract/events.js';
import { DAY_MS } from '../../contract/time.js';
import { EVENT_RETENTION_MS } from '../../contract/limits.js';

export const SESSION_TTL_MS = DAY_MS;

/** States a session can still be canceled from (an authorized manual-capture payment is voided). */
const CANCELABLE: SessionStatus[] = ['requires_payment_method', 'requires_action', 'processing'];
/** States in which an unpaid session expires. */
const EXPIRABLE: SessionStatus[] = ['requires_payment_method', 'requires_action'];

/** Fields added to the session object later: rows stored before them lack them (toApi fills the defaults). */
type LaterFields =
  | 'customer_phone'
  | 'merchant_reference'
  | 'statement_descriptor'
  | 'billing_address'
  | 'shipping_address'
  | 'save_payment_method'
  | 'updated_at';

/**
 * What is stored: the API object without its client secret and without what the payments area reports
 * (`latest_attempt`, `next_action`). The secret is derived from the id under the data directory's key (Sealer.derive).
 * Three forms must all still be read: `secret_form: 'named'` (the id and a MAC of it: names its session), derived
 * without the id (does not name it), and sealed (AES-GCM) with a hash.
 */
/** A session as writes see it (Sessions.current): the stored fields, no secret. */
export type SessionFacts = Readonly<
  Omit<StoredSession, 'client_secret_sealed' | 'client_secret_hash' | 'secret_form' | 'browser'>
>;

export type StoredSession = Omit<PaymentSession, 'client_secret' | 'latest_attempt' | 'next_action' | LaterFields> &
  Partial<Pick<PaymentSession, LaterFields>> & {
    client_secret_sealed?: string;
    client_secret_hash?: string;
    secret_form?: 'named';
    expires_ms: number;
    /** The payer's browser (create-session `browser`): kept for 3DS risk checks, never returned. */
    browser?: { ip_address?: string; user_agent?: string };
  };

/** What client-secret authentication reads of a session (Sessions.authenticateSecret). */
export interface SecretFacts {
  account_id: string;
  expires_ms: number;
  /** The stored hash of a sealed secret; '' when none is stored. */
  secret_hash: string;
  /** The document's `secret_form` (null when absent). */
  form: string | null;
}

/** What the sessions keep: the sessions, and the reads that find them across accounts or by due time. */
export interface SessionsPort {
  readonly sessions: Documents<StoredSession>;
  /** What client-secret authentication needs of session `id`, whatever its account, without the whole document. */
  secretFacts(id: string): Promise<SecretFacts | undefined>;
  /** Session `id` with its account, whatever the account. */
  find(id: string): Promise<Owned<StoredSession> | undefined>;
  /** The earliest expiry time (ms) of the account's sessions in one of `statuses`, if any. */
  nextExpiry(accountId: string, statuses: readonly SessionStatus[]): Promise<number | undefined>;
  /**
   * Sessions in one of `statuses` whose expiry time is at or before `now` (of one account, or of all), in creation
   * order, at most `limit` of them (all when -1).
   */
  expiring(
    statuses: readonly SessionStatus[],
    now: number,
    accountId: string | undefined,
    limit: number,
  ): Promise<Owned<StoredSession>[]>;
  /**
   * The account's sessions in one of `statuses` whose expiry time is at or before `until`, in order of expiry time and
   * then of creation, at most `limit` of them — taken for the caller's write transaction (on an engine of many
   * processes, rows another's transaction holds are passed over, as `expiring`).
   */
  expiringInOrder(
    accountId: string,
    statuses: readonly SessionStatus[],
    until: number,
    limit: number,
  ): Promise<StoredSession[]>;
  /** Writes each of `docs` (sessions of the account, each changed whole), in one operation where the engine can. */
  updateAll(accountId: string, docs: readonly StoredSession[]): Promise<void>;
}

/** The session events a status change records (the others record none). */
const SESSION_EVENTS: Partial<Record<SessionStatus, EventType>> = {
  succeeded: 'payment_session.succeeded',
  failed: 'payment_session.failed',
};

/** The fields a status change alters, as they are before it (events' previous_attributes). */
const changing = (s: StoredSession) => ({
  status: s.status,
  cancellation_reason: s.cancellation_reason,
  canceled_at: s.canceled_at,
  updated_at: s.updated_at ?? s.created_at,
});

export class Sessions implements DueWork {
  readonly name = 'session expiry';
  readonly collection: Documents<StoredSession>;

  constructor(
    private readonly stored: SessionsPort,
    private readonly sealer: Sealer,
    private readonly events: Events,
    /** Other areas react to a session canceling or succeeding, and report its payment (hooks.ts). */
    private readonly hooks: Hooks,
    /** The server's base URL now, for the checkout page's link (links.ts). */
    private readonly publicUrl: () => string,
  ) {
    this.collection = stored.sessions;
  }

  /** The session's client secret, derived from its id (nothing sealed on create, nothing opened on retrieve). */
  private secretFor(id: string): string {
    let round = 0;
    return clientSecretFrom(this.sealer.derive('client_secret', id), () =>
      this.sealer.derive('client_secret', `${id}#${++round}`),
    );
  }

  /** The secret of `secret_form: 'named'` sessions (the current form): the session id and a MAC of it (ids.ts). */
  private namedSecret(id: string): string {
    return clientSecretNaming(id, this.sealer.derive('client_secret_named', id));
  }

  private secretOf(s: StoredSession): string {
    if (s.client_secret_sealed) return this.sealer.open(s.client_secret_sealed);
    return s.secret_form === 'named' ? this.namedSecret(s.id) : this.secretFor(s.id);
  }

  /** A session's client secret (for an idempotent replay of a response saved without it). */
  async clientSecret(accountId: string, id: string): Promise<string> {
    const stored = await this.collection.get(accountId, id);
    return stored ? this.secretOf(stored) : this.namedSecret(id);
  }

  /** The account session `id` belongs to (whatever the account asking), if there is such a session. */
  async accountOf(id: string): Promise<string | undefined> {
    return (await this.stored.find(id))?.accountId;
  }

  /** The session's latest payment as the payments area reports it (Hooks 'sessionPayment'), or null. */
  private async paymentOf(accountId: string, sessionId: string): Promise<SessionPayment | null> {
    const query: SessionPaymentQuery = { session_id: sessionId, payment: null };
    await this.hooks.emit('sessionPayment', accountId, query);
    return query.payment;
  }

  /** The API object, with the session's latest payment as the payments area reports it. */
  private async apiOf(accountId: string, s: StoredSession, secret = this.secretOf(s)): Promise<PaymentSession> {
    return this.toApi(s, secret, await this.paymentOf(accountId, s.id));
  }

  /**
   * The API object. `client_secret` stays its last member (routes/sessions.ts cuts it off the saved text);
   * `payment` is what the payments area reports (apiOf looks it up; null when the caller knows there is none).
   */
  private toApi(s: StoredSession, secret: string, payment: SessionPayment | null): PaymentSession {
    return {
      id: s.id,
      object: 'payment_session',
      status: s.status,
      amount: s.amount,
      currency: s.currency,
      external_id: s.external_id,
      merchant_reference: s.merchant_reference ?? null,
      description: s.description,
      statement_descriptor: s.statement_descriptor ?? null,
      customer_email: s.customer_email,
      customer_name: s.customer_name,
      customer_phone: s.customer_phone ?? null,
      billing_address: s.billing_address ?? null,
      shipping_address: s.shipping_address ?? null,
      capture_method: s.capture_method,
      payment_method_types: s.payment_method_types,
      success_url: s.success_url,
      cancel_url: s.cancel_url,
      fallback_url: hostedLinks.checkout(this.publicUrl(), s.id),
      save_payment_method: s.save_payment_method ?? false,
      metadata: s.metadata,
      cancellation_reason: s.cancellation_reason,
      canceled_at: s.canceled_at,
      latest_attempt: payment?.latest_attempt ?? null,
      next_action: s.status === 'requires_action' ? (payment?.next_action ?? null) : null,
      expires_at: s.expires_at,
      created_at: s.created_at,
      updated_at: s.updated_at ?? s.created_at,
      livemode: false,
      client_secret: secret,
    };
  }

  /**
   * Records `type` for the session: the API object without its client secret (events never carry one); `payment`
   * is looked up when not given.
   */
  private async recordEvent(
    accountId: string,
    type: EventType,
    s: StoredSession,
    at: number,
    previous?: object,
    payment?: SessionPayment | null,
  ): Promise<void> {
    const { client_secret: _secret, ...object } = this.toApi(
      s,
      '',
      payment === undefined ? await this.paymentOf(accountId, s.id) : payment,
    );
    await this.events.record(accountId, type, object, { at, previous });
  }

  async create(
    accountId: string,
    body: CreateSessionBody,
    now: number,
    checkoutBaseUrl: string,
  ): Promise<PaymentSession> {
    // Where the hosted page sends the payer afterwards, and the return_url of a 3-D Secure next_action.
    for (const param of ['success_url', 'return_url', 'cancel_url'] as const)
      if (body[param] !== undefined) checkHttpUrl(body[param], param);
    const id = newUuid();
    const secret = this.namedSecret(id);
    const stored: StoredSession = {
      id,
      object: 'payment_session',
      status: 'requires_payment_method',
      amount: body.amount,
      currency: normalizeCurrency(body.currency, 'currency'),
      external_id: body.external_id ?? null,
      merchant_reference: body.merchant_reference ?? null,
      description: body.description ?? null,
      statement_descriptor: body.statement_descriptor ?? null,
      customer_email:
        sameOrEither(body.customer?.email, 'customer.email', body.customer_email, 'customer_email') ?? null,
      customer_name: body.customer?.name ?? null,
      customer_phone: body.customer?.phone ?? null,
      billing_address: body.billing_address ?? null,
      shipping_address: body.shipping_address ?? null,
      capture_method: body.capture_method ?? 'automatic',
      payment_method_types: body.payment_method_types ?? ['card'],
      success_url: sameOrEither(body.success_url, 'success_url', body.return_url, 'return_url') ?? null,
      cancel_url: body.cancel_url ?? null,
      fallback_url: hostedLinks.checkout(checkoutBaseUrl, id),
      save_payment_method: body.save_payment_method ?? false,
      metadata: body.metadata ?? {},
      cancellation_reason: null,
      canceled_at: null,
      expires_at: isoTime(now + SESSION_TTL_MS),
      created_at: isoTime(now),
      updated_at: isoTime(now),
      livemode: false,
      secret_form: 'named',
      expires_ms: now + SESSION_TTL_MS,
      ...(body.browser ? { browser: body.browser } : {}),
    };
    await this.collection.insert(accountId, stored);
    // The secret in hand, and no payment yet: nothing to look up.
    const session = this.toApi(stored, secret, null);
    const { client_secret: _secret, ...object } = session;
    // The secret is the API object's last member: the event's text is the answer's without it.
    const json = JSON.stringify(session);
    const last = `,"client_secret":${JSON.stringify(secret)}}`;
    await this.events.record(accountId, 'payment_session.created', object, {
      at: now,
      json: json.endsWith(last) ? `${json.slice(0, -last.length)}}` : undefined,
    });
    return withJsonText(session, json);
  }

  /** The stored session, expired first if its time has come (so a read never shows a stale state). */
  private async load(accountId: string, id: string, now: number): Promise<StoredSession> {
    const s = await this.collection.require(accountId, id, 'payment_session', 'session_id');
    if (EXPIRABLE.includes(s.status) && s.expires_ms <= now) return this.expire(accountId, s);
    return s;
  }

  /**
   * For a write acting on the session: what it is (expired first if its time has come), without the client
   * secret and the latest payment the API object carries — a confirm needs neither, and both cost on its path.
   */
  current(accountId: string, id: string, now: number): Promise<SessionFacts> {
    return this.load(accountId, id, now);
  }

  /** The session as committed (reads never run due work: the scheduler expires sessions, domain/due.ts). */
  async get(accountId: string, id: string): Promise<PaymentSession> {
    return this.apiOf(accountId, await this.collection.require(accountId, id, 'payment_session', 'session_id'));
  }

  async update(accountId: string, id: string, body: UpdateSessionBody, now: number): Promise<PaymentSession> {
    const s = await this.load(accountId, id, now);
    if (s.status !== 'requires_payment_method') {
      throw errors.unexpectedState(
        'session',
        `This payment session is ${s.status}; it can only be updated while requires_payment_method.`,
      );
    }
    const { client_secret: _before, ...before } = await this.apiOf(accountId, s, '');
    if (body.amount !== undefined) s.amount = body.amount;
    if (body.currency !== undefined) s.currency = normalizeCurrency(body.currency, 'currency');
    if (body.description !== undefined) s.description = body.description;
    if (body.statement_descriptor !== undefined) s.statement_descriptor = body.statement_descriptor;
    if (body.customer?.email !== undefined) s.customer_email = body.customer.email;
    if (body.customer?.name !== undefined) s.customer_name = body.customer.name;
    if (body.customer?.phone !== undefined) s.customer_phone = body.customer.phone;
    // An address is replaced whole, as at the live service (a partial one would mix two addresses).
    if (body.billing_address !== undefined) s.billing_address = body.billing_address;
    if (body.shipping_address !== undefined) s.shipping_address = body.shipping_address;
    if (body.metadata !== undefined) s.metadata = mergeMetadata(s.metadata, body.metadata);
    const { updated_at: _at, ...unchanged } = before;
    const { client_secret: _secret, updated_at: _now, ...after } = await this.apiOf(accountId, s, '');
    s.updated_at = isoTime(now);
    await this.collection.update(accountId, s);
    const session = await this.apiOf(accountId, s);
    // An update that changes nothing but updated_at records no event (as in every area).
    if (previousAttributes(unchanged, after) !== undefined) {
      const { client_secret: _new, ...object } = session;
      await this.events.record(accountId, 'payment_session.updated', object, { at: now, previous: before });
    }
    return session;
  }

  async cancel(accountId: string, id: string, body: CancelSessionBody, now: number): Promise<PaymentSession> {
    const s = await this.load(accountId, id, now);
    if (!CANCELABLE.includes(s.status)) {
      throw errors.unexpectedState(
        'session',
        `This payment session is ${s.status}; only sessions in ${CANCELABLE.join(', ')} can be canceled.`,
      );
    }
    await this.hooks.emit('sessionCanceling', accountId, { session_id: id, at: now });
    const previous = changing(s);
    s.status = 'canceled';
    s.cancellation_reason = body.cancellation_reason ?? 'requested_by_customer';
    s.canceled_at = unixSeconds(now);
    s.updated_at = isoTime(now);
    await this.collection.update(accountId, s);
    const session = await this.apiOf(accountId, s);
    const { client_secret: _secret, ...object } = session;
    await this.events.record(accountId, 'payment_session.canceled', object, { at: now, previous });
    return session;
  }

  async list(accountId: string, url: string, query: ListSessionsQuery): Promise<List<PaymentSession>> {
    const page = await this.collection.list(accountId, url, {
      ...query,
      where: { status: query.status, external_id: query.external_id },
    });
    const data: PaymentSession[] = [];
    for (const s of page.data) data.push(await this.apiOf(accountId, s));
    return { ...page, data };
  }

  /**
   * For client-secret authentication: the session `secret` belongs to, with its account, when the secret is
   * that session's and `sessionId` (the path's, when the route has one) is that session. A secret of the
   * current form names its session; the earlier forms do not, so they need `sessionId`. Compared in constant time.
   */
  async authenticateSecret(
    sessionId: string | undefined,
    secret: string,
  ): Promise<{ accountId: string; sessionId: string; expiresMs: number } | undefined> {
    const named = clientSecretParts(secret);
    const id = sessionId ?? named?.sessionId;
    if (id === undefined) return undefined;
    // The current form: the row's columns and its form, not the whole document, and the MAC the secret carries
    // compared with the session's — nothing rebuilt or hashed (this runs on every confirm).
    const facts = await this.stored.secretFacts(id);
    if (!facts) return undefined;
    if (facts.form === 'named' && facts.secret_hash === '') {
      if (
        named?.sessionId !== id ||
        !macsEqual(named.mac, this.sealer.derive('client_secret_named', id), SECRET_MAC_BYTES)
      )
        return undefined;
      return { accountId: facts.account_id, sessionId: id, expiresMs: facts.expires_ms };
    }
    // Earlier forms (derived without the id, or sealed with a hash): the whole document.
    const row = await this.stored.find(id);
    if (!row) return undefined;
    const sealed = row.doc.client_secret_sealed;
    const expected = sealed
      ? row.doc.client_secret_hash === sha256(secret)
        ? this.sealer.open(sealed)
        : undefined
      : this.secretOf(row.doc);
    if (expected === undefined || !secretsEqual(expected, secret)) return undefined;
    return { accountId: row.accountId, sessionId: id, expiresMs: row.doc.expires_ms };
  }

  /**
   * Moves the session from one of `from` to `to` (expiring it first if due), or throws 409
   * session_unexpected_state. Runs inside the caller's transaction: the check and the set are one step.
   * `known.current`: the session as the caller read it (Sessions.current) in this transaction, when nothing has
   * written it since — not read again (a confirm reads it first: saves a query and a parse).
   * `known.payment`: the session's latest payment as its event shows it, when the caller has it (a confirm has just
   * stored it) — not asked of the payments area (Hooks 'sessionPayment').
   */
  async transition(
    accountId: string,
    id: string,
    now: number,
    from: SessionStatus[],
    to: SessionStatus,
    action = 'confirmed',
    known: { current?: SessionFacts; payment?: () => SessionPayment } = {},
  ): Promise<void> {
    const { current } = known;
    const s = current?.id === id ? (current as StoredSession) : await this.load(accountId, id, now);
    if (!from.includes(s.status)) {
      throw errors.unexpectedState(
        'session',
        `This payment session is ${s.status}; it can only be ${action} while ${from.join(' or ')}.`,
      );
    }
    const previous = changing(s);
    s.status = to;
    s.updated_at = isoTime(now);
    await this.collection.update(accountId, s);
    if (to === 'succeeded') await this.hooks.emit('sessionSucceeded', accountId, { session_id: id, at: now });
    const type = SESSION_EVENTS[to];
    if (type) await this.recordEvent(accountId, type, s, now, previous, known.payment?.());
  }

  private async expire(accountId: string, s: StoredSession): Promise<StoredSession> {
    await this.hooks.emit('sessionCanceling', accountId, { session_id: s.id, at: s.expires_ms });
    const previous = expired(s);
    await this.collection.update(accountId, s);
    await this.recordEvent(accountId, 'payment_session.expired', s, s.expires_ms, previous);
    return s;
  }

  // DueWork: unpaid sessions 24 h old become canceled/abandoned.
  nextDue(accountId: string): Promise<number | undefined> {
    return this.stored.nextExpiry(accountId, EXPIRABLE);
  }

  async runDue(now: number, accountId?: string, limit = -1): Promise<number> {
    const due = await this.stored.expiring(EXPIRABLE, now, accountId, limit);
    for (const { accountId: acct, doc } of due) await this.expire(acct, doc);
    return due.length;
  }

  /**
   * Sessions expire in sets (domain/due.ts): each is dated by its own expiry time, none changes another, and what an
   * expiry records (its events) comes due for retention EVENT_RETENTION_MS later, no sooner.
   */
  readonly inSets: DueSets = {
    horizonMs: EVENT_RETENTION_MS,
    runSet: (accountId, until, limit, take) => this.expireSet(accountId, until, limit, take),
  };

  /**
   * The sessions due by `until` that `take` admits, in order of their expiry times, each as `expire` expires it. The
   * areas that must see a session expire (its payment voided, its payment shown in the event) name it
   * ('sessionsExpiring'): those expire one at a time; a run of the others between them is written, and its events
   * recorded, in one operation each.
   */
  private async expireSet(
    accountId: string,
    until: number,
    limit: number,
    take: (dueMs: number) => boolean,
  ): Promise<number> {
    const due = await this.stored.expiringInOrder(accountId, EXPIRABLE, until, limit);
    let n = 0;
    while (n < due.length && take(due[n]!.expires_ms)) n++;
    if (n === 0) return 0;
    const set = due.slice(0, n);
    const asked = { session_ids: set.map((s) => s.id), one_by_one: new Set<string>() };
    await this.hooks.emit('sessionsExpiring', accountId, asked);
    let run: StoredSession[] = [];
    for (const s of set) {
      if (!asked.one_by_one.has(s.id)) {
        run.push(s);
        continue;
      }
      await this.expireAll(accountId, run);
      run = [];
      await this.expire(accountId, s);
    }
    await this.expireAll(accountId, run);
    return n;
  }

  /** Sessions no other area has to see expire (no payment): written together, their events recorded together. */
  private async expireAll(accountId: string, set: StoredSession[]): Promise<void> {
    if (set.length === 0) return;
    const previous = set.map(expired);
    await this.stored.updateAll(accountId, set);
    const records: EventRecord[] = set.map((s, i) => {
      const { client_secret: _secret, ...object } = this.toApi(s, '', null);
      return { type: 'payment_session.expired', object, opts: { at: s.expires_ms, previous: previous[i] } };
    });
    await this.events.recordAll(accountId, records);
  }
}

/** Makes `s` expired (canceled, abandoned, at its expiry time); what it was before (events' previous_attributes). */
function expired(s: StoredSession): ReturnType<typeof changing> {
  const previous = changing(s);
  s.status = 'canceled';
  s.cancellation_reason = 'abandoned';
  s.canceled_at = unixSeconds(s.expires_ms);
  s.updated_at = isoTime(s.expires_ms);
  return previous;
}

/**
 * Which session a request is for: the path's (`POST /confirm-payment/{id}`) or the body's `session_id`
 * (`POST /confirm-payment`); both given must agree. `authenticated`: the session whose client secret the request
 * carried — a secret acts for its own session only (another id → 401), and since it names that session, it is the
 * session when no id is given (docs/api.md "Confirm"). No id and no secret (an API key) → 400 parameter_missing.
 */
export function requestedSession(
  path: string | undefined,
  body: string | undefined,
  authenticated: string | undefined,
): string {
  const id = path ?? body ?? authenticated;
  if (id === undefined) throw errors.parameterMissing('session_id');
  if (path !== undefined && body !== undefined && path !== body)
    throw errors.parameterInvalid('session_id', 'must be the session in the path when both are given');
  if (authenticated !== undefined && authenticated !== id) {
    throw errors.authentication(
      'invalid_client_secret',
      'The client secret is not valid for this payment session (wrong session, wrong secret, or the session expired).',
    );
  }
  return id;
}

/** Two request fields meaning the same (an alias): either one, or both when they agree. */
function sameOrEither<T>(a: T | undefined, aName: string, b: T | undefined, bName: string): T | undefined {
  if (a !== undefined && b !== undefined && a !== b)
    throw errors.parameterInvalid(bName, `says something else than ${aName}; give one of them`);
  return a ?? b;
}
