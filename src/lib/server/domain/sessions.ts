// Payment sessions: creation, update, cancel, expiry (contract.md §7). The state machine lives here.
import type { CancelSessionBody, CreateSessionBody, ListSessionsQuery, PaymentSession, SessionStatus, UpdateSessionBody } from '../../contract/sessions.js';
import type { List } from '../../contract/common.js';
import type { Store } from '../store/db.js';
import { Collection } from '../store/collection.js';
import { tables } from '../store/tables.js';
import { clientSecretFrom, newUuid } from '../ids.js';
import { isoTime, unixSeconds } from '../clock.js';
import { sha256, secretsEqual, type Sealer } from '../crypto.js';
import { errors } from '../errors.js';
import { normalizeCurrency, mergeMetadata } from './values.js';
import type { DueWork } from './due.js';

export const SESSION_TTL_MS = 24 * 3600 * 1000;

/** States a session can still be canceled from (an authorized manual-capture payment is voided). */
const CANCELABLE: SessionStatus[] = ['requires_payment_method', 'requires_action', 'processing'];
/** States in which an unpaid session expires. */
const EXPIRABLE: SessionStatus[] = ['requires_payment_method', 'requires_action'];

/**
 * What is stored: the API object without its client secret. The secret is derived from the session id under
 * the data directory's key (Sealer.derive), so nothing of it is stored. Sessions written before that kept it
 * sealed (AES-GCM) with a hash for the lookup; those are still read.
 */
type StoredSession = Omit<PaymentSession, 'client_secret'> & { client_secret_sealed?: string; client_secret_hash?: string; expires_ms: number };

/** Called inside the cancel/expiry transaction, before the session becomes canceled (e.g. payments voids). May throw. */
export type SessionCancelHook = (accountId: string, sessionId: string, now: number) => void;

export class Sessions implements DueWork {
  readonly name = 'session expiry';
  readonly collection: Collection<StoredSession>;
  /** Other areas' reactions to a session being canceled or expiring (payments voids its payment). */
  readonly cancelHooks: SessionCancelHook[] = [];
  /** Called in the transaction that moves a session to succeeded (billing completes its checkout session). */
  readonly succeededHooks: SessionCancelHook[] = [];

  constructor(private readonly store: Store, private readonly sealer: Sealer) {
    this.collection = new Collection<StoredSession>(store, tables.payment_sessions);
  }

  /**
   * The session's client secret. Derived rather than sealed and stored: measured, sealing (AES-GCM) and
   * hashing it cost ~10 µs of a create-session under load, and every retrieve opened it again.
   */
  private secretFor(id: string): string {
    let round = 0;
    return clientSecretFrom(this.sealer.derive('client_secret', id), () => this.sealer.derive('client_secret', `${id}#${++round}`));
  }

  /** A session's client secret (for an idempotent replay of a response saved without it). */
  clientSecret(accountId: string, id: string): string {
    const stored = this.collection.get(accountId, id);
    return stored?.client_secret_sealed ? this.sealer.open(stored.client_secret_sealed) : this.secretFor(id);
  }

  private toApi(stored: StoredSession): PaymentSession {
    const { client_secret_sealed, client_secret_hash: _hash, expires_ms: _expires, ...rest } = stored;
    return { ...rest, client_secret: client_secret_sealed ? this.sealer.open(client_secret_sealed) : this.secretFor(stored.id) };
  }

  create(accountId: string, body: CreateSessionBody, now: number, checkoutBaseUrl: string): PaymentSession {
    const id = newUuid();
    const secret = this.secretFor(id);
    const stored: StoredSession = {
      id,
      object: 'payment_session',
      status: 'requires_payment_method',
      amount: body.amount,
      currency: normalizeCurrency(body.currency, 'currency'),
      external_id: body.external_id ?? null,
      description: body.description ?? null,
      customer_email: body.customer?.email ?? null,
      customer_name: body.customer?.name ?? null,
      capture_method: body.capture_method ?? 'automatic',
      payment_method_types: body.payment_method_types ?? ['card'],
      success_url: body.success_url ?? null,
      cancel_url: body.cancel_url ?? null,
      fallback_url: `${checkoutBaseUrl}/pay/${id}`,
      metadata: body.metadata ?? {},
      cancellation_reason: null,
      canceled_at: null,
      expires_at: isoTime(now + SESSION_TTL_MS),
      created_at: isoTime(now),
      livemode: false,
      expires_ms: now + SESSION_TTL_MS,
    };
    this.collection.insert(accountId, stored);
    const { client_secret_sealed: _sealed, client_secret_hash: _hash, expires_ms: _expires, ...rest } = stored;
    return { ...rest, client_secret: secret }; // the secret in hand: no need to open what was just sealed
  }

  /** The stored session, expired first if its time has come (so a read never shows a stale state). */
  private load(accountId: string, id: string, now: number): StoredSession {
    const s = this.collection.require(accountId, id, 'payment_session', 'session_id');
    if (EXPIRABLE.includes(s.status) && s.expires_ms <= now) return this.expire(accountId, s);
    return s;
  }

  /** For a write acting on the session: the session, expired first if its time has come. */
  current(accountId: string, id: string, now: number): PaymentSession {
    return this.toApi(this.load(accountId, id, now));
  }

  /** The session as committed (reads never run due work: the scheduler expires sessions, domain/due.ts). */
  get(accountId: string, id: string): PaymentSession {
    return this.toApi(this.collection.require(accountId, id, 'payment_session', 'session_id'));
  }

  update(accountId: string, id: string, body: UpdateSessionBody, now: number): PaymentSession {
    const s = this.load(accountId, id, now);
    if (s.status !== 'requires_payment_method') {
      throw errors.unexpectedState('session', `This payment session is ${s.status}; it can only be updated while requires_payment_method.`);
    }
    if (body.amount !== undefined) s.amount = body.amount;
    if (body.currency !== undefined) s.currency = normalizeCurrency(body.currency, 'currency');
    if (body.description !== undefined) s.description = body.description;
    if (body.customer?.email !== undefined) s.customer_email = body.customer.email;
    if (body.customer?.name !== undefined) s.customer_name = body.customer.name;
    if (body.metadata !== undefined) s.metadata = mergeMetadata(s.metadata, body.metadata);
    this.collection.update(accountId, s);
    return this.toApi(s);
  }

  cancel(accountId: string, id: string, body: CancelSessionBody, now: number): PaymentSession {
    const s = this.load(accountId, id, now);
    if (!CANCELABLE.includes(s.status)) {
      throw errors.unexpectedState('session', `This payment session is ${s.status}; only sessions in ${CANCELABLE.join(', ')} can be canceled.`);
    }
    for (const hook of this.cancelHooks) hook(accountId, id, now);
    s.status = 'canceled';
    s.cancellation_reason = body.cancellation_reason ?? 'requested_by_customer';
    s.canceled_at = unixSeconds(now);
    this.collection.update(accountId, s);
    return this.toApi(s);
  }

  list(accountId: string, url: string, query: ListSessionsQuery): List<PaymentSession> {
    const page = this.collection.list(accountId, url, { ...query, where: { status: query.status, external_id: query.external_id } });
    return { ...page, data: page.data.map((s) => this.toApi(s)) };
  }

  /** For client-secret authentication: the session's account when `secret` is this session's live secret. */
  authenticateSecret(sessionId: string, secret: string): { accountId: string; expiresMs: number } | undefined {
    const row = this.collection.selectWhere('id = ?', sessionId)[0];
    if (!row) return undefined;
    const sealed = row.doc.client_secret_sealed;
    const expected = sealed ? (row.doc.client_secret_hash === sha256(secret) ? this.sealer.open(sealed) : undefined) : this.secretFor(sessionId);
    if (expected === undefined || !secretsEqual(expected, secret)) return undefined;
    return { accountId: row.accountId, expiresMs: row.doc.expires_ms };
  }

  /**
   * Moves the session from one of `from` to `to` (expiring it first if due), or throws 409
   * session_unexpected_state. Runs inside the caller's transaction: the check and the set are one step.
   */
  transition(accountId: string, id: string, now: number, from: SessionStatus[], to: SessionStatus, action = 'confirmed'): PaymentSession {
    const s = this.load(accountId, id, now);
    if (!from.includes(s.status)) {
      throw errors.unexpectedState('session', `This payment session is ${s.status}; it can only be ${action} while ${from.join(' or ')}.`);
    }
    s.status = to;
    this.collection.update(accountId, s);
    if (to === 'succeeded') for (const hook of this.succeededHooks) hook(accountId, id, now);
    return this.toApi(s);
  }

  private expire(accountId: string, s: StoredSession): StoredSession {
    for (const hook of this.cancelHooks) hook(accountId, s.id, s.expires_ms);
    s.status = 'canceled';
    s.cancellation_reason = 'abandoned';
    s.canceled_at = unixSeconds(s.expires_ms);
    this.collection.update(accountId, s);
    return s;
  }

  // DueWork: unpaid sessions 24 h old become canceled/abandoned.
  nextDue(accountId: string): number | undefined {
    // One MIN per status: each is a single seek on (account_id, status, expires_ms); an IN list would scan.
    const row = this.store.db
      .prepare(`SELECT MIN(t) AS t FROM (${EXPIRABLE.map(() => 'SELECT MIN(expires_ms) AS t FROM payment_sessions WHERE account_id = ? AND status = ?').join(' UNION ALL ')})`)
      .get(...EXPIRABLE.flatMap((s) => [accountId, s])) as { t: number | null };
    return row.t ?? undefined;
  }

  runDue(now: number, accountId?: string, limit = -1): number {
    const cond = `status IN (${EXPIRABLE.map(() => '?').join(', ')}) AND expires_ms <= ?${accountId ? ' AND account_id = ?' : ''}`;
    const due = this.collection.selectFirst(limit, cond, ...EXPIRABLE, now, ...(accountId ? [accountId] : []));
    for (const { accountId: acct, doc } of due) this.expire(acct, doc);
    return due.length;
  }
}
