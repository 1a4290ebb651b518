// KYC verifications (docs/api.md "Identity vault"): created `pending` with the checks of their level, submitted to
// `processing`, decided on the account's clock KYC_PROCESSING_MS later. The outcome follows documented
// test values of the linked identity tokens (docs/api.md "KYC verifications").
import type {
  CreateKycBody,
  IdentityTokenType,
  KycCheck,
  KycCheckType,
  KycVerification,
  ListKycQuery,
  SubmitKycBody,
  VerificationLevel,
} from '../../../contract/identity.js';
import type { List } from '../../../contract/common.js';
import type { Documents, Owned } from '../../store/seam.js';
import { newId, randomBase62 } from '../../ids.js';
import { isoTime } from '../../clock.js';
import { errors } from '../../errors.js';
import type { DueWork } from '../due.js';
import type { Vault } from './vault.js';
import type { Events } from '../events.js';
import type { EventType } from '../../../contract/events.js';

/** The event of each decided status. */
const DECIDED: Record<'verified' | 'rejected' | 'requires_input', EventType> = {
  verified: 'kyc_verification.verified',
  rejected: 'kyc_verification.rejected',
  requires_input: 'kyc_verification.requires_input',
};

/** The fields a transition alters, as they are before it (events' previous_attributes). */
const changing = (k: StoredKyc) => ({
  status: k.status,
  status_reason: k.status_reason,
  risk_score: k.risk_score,
  submitted_at: k.submitted_at,
  completed_at: k.completed_at,
  identity_token_ids: k.identity_token_ids,
  checks: k.checks,
});

/** How long a submitted verification stays `processing`. */
export const KYC_PROCESSING_MS = 30_000;

export const CHECKS_BY_LEVEL: Record<VerificationLevel, KycCheckType[]> = {
  basic: ['identity', 'watchlist'],
  enhanced: ['identity', 'watchlist', 'document', 'address'],
};

/** Test values (the value stored in a linked identity token). */
export const KYC_TEST_VALUES = {
  /** identity check fails → rejected */
  identityMismatch: '000000000',
  /** identity check cannot decide → requires_input */
  identityUnverifiable: '111111111',
  /** watchlist check matches → rejected */
  watchlistMatch: '222222222',
} as const;

const NUMBER_TYPES = new Set(['ssn', 'ssn_last4', 'ein', 'itin', 'tax_id', 'national_id']);
const DOCUMENT_TYPES = new Set(['passport', 'drivers_license', 'national_id']);
/** Failure reasons that end in `rejected` (the rest ask for input). */
const REJECTING = new Set(['identity_mismatch', 'watchlist_match']);

export type StoredKyc = KycVerification & { due_ms: number | null };

/** What KYC keeps: its verifications, and the processing ones whose decision is due. */
export interface KycPort {
  readonly verifications: Documents<StoredKyc>;
  /** The earliest `due_ms` among the account's `processing` verifications, if any. */
  nextDecision(accountId: string): Promise<number | undefined>;
  /**
   * The `processing` verifications whose `due_ms` is at or before `now` (of one account, or of all), in creation
   * order, at most `limit` of them (all when -1).
   */
  dueDecisions(now: number, accountId: string | undefined, limit: number): Promise<Owned<StoredKyc>[]>;
}

export class Kyc implements DueWork {
  readonly name = 'kyc processing';
  readonly collection: Documents<StoredKyc>;

  constructor(
    private readonly stored: KycPort,
    private readonly vault: Vault,
    private readonly events: Events,
  ) {
    this.collection = stored.verifications;
  }

  private async checkTokens(accountId: string, ids: string[] | undefined): Promise<string[]> {
    for (const [i, id] of (ids ?? []).entries()) {
      if (!(await this.vault.tokens.get(accountId, id)))
        throw errors.notFound('identity_token', id, `identity_token_ids[${i}]`);
    }
    return ids ?? [];
  }

  private newChecks(level: VerificationLevel, now: number): KycCheck[] {
    return CHECKS_BY_LEVEL[level].map((check_type) => ({
      id: newId('kchk'),
      check_type,
      status: 'pending',
      status_reason: null,
      confidence_score: null,
      created_at: isoTime(now),
      completed_at: null,
    }));
  }

  async create(accountId: string, body: CreateKycBody, now: number): Promise<KycVerification> {
    const tokenIds = await this.checkTokens(accountId, body.identity_token_ids);
    const k: StoredKyc = {
      id: newId('kyc'),
      object: 'kyc_verification',
      status: 'pending',
      status_reason: null,
      customer_id: body.customer_id,
      verification_level: body.verification_level,
      identity_token_ids: tokenIds,
      provider: 'payorch_test',
      provider_session_token: `kst_${randomBase62(32)}`,
      risk_score: null,
      checks: this.newChecks(body.verification_level, now),
      metadata: body.metadata ?? {},
      created_at: isoTime(now),
      submitted_at: null,
      completed_at: null,
      livemode: false,
      due_ms: null,
    };
    await this.collection.insert(accountId, k);
    return await this.record(accountId, 'kyc_verification.created', k, now);
  }

  /** Records `type`: the verification as the API shows it, without provider_session_token (a credential of the
   * provider's flow, like a session's client secret: events are stored and sent to endpoints). */
  private async record(
    accountId: string,
    type: EventType,
    k: StoredKyc,
    at: number,
    previous?: object,
  ): Promise<KycVerification> {
    const api = toApi(k);
    const { provider_session_token: _token, ...object } = api;
    await this.events.record(accountId, type, object, { at, previous });
    return api;
  }

  private async load(accountId: string, id: string, now: number): Promise<StoredKyc> {
    const k = await this.collection.require(accountId, id, 'kyc_verification', 'verification_id');
    if (k.status === 'processing' && k.due_ms !== null && k.due_ms <= now) await this.decide(accountId, k);
    return k;
  }

  /** Runs this one verification's decision if its time has come (test triggers). */
  async decideIfDue(accountId: string, id: string, now: number): Promise<KycVerification> {
    return toApi(await this.load(accountId, id, now));
  }

  /** As committed: reads never run due work (the scheduler decides verifications, domain/due.ts). */
  async get(accountId: string, id: string): Promise<KycVerification> {
    return toApi(await this.collection.require(accountId, id, 'kyc_verification', 'verification_id'));
  }

  async list(accountId: string, url: string, q: ListKycQuery): Promise<List<KycVerification>> {
    const page = await this.collection.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: { status: q.status, customer_id: q.customer },
    });
    return { ...page, data: page.data.map(toApi) };
  }

  async submit(accountId: string, id: string, body: SubmitKycBody, now: number): Promise<KycVerification> {
    const k = await this.load(accountId, id, now);
    if (k.status !== 'pending' && k.status !== 'requires_input') {
      throw errors.unexpectedState(
        'kyc_verification',
        `This verification is ${k.status}; only pending or requires_input verifications can be submitted.`,
      );
    }
    const added = await this.checkTokens(accountId, body.identity_token_ids);
    const previous = changing(k);
    k.identity_token_ids = [...new Set([...k.identity_token_ids, ...added])];
    if (k.status === 'requires_input') k.checks = this.newChecks(k.verification_level, now);
    k.status = 'processing';
    k.status_reason = null;
    k.risk_score = null;
    k.submitted_at = isoTime(now);
    k.completed_at = null;
    k.due_ms = now + KYC_PROCESSING_MS;
    await this.collection.update(accountId, k);
    return await this.record(accountId, 'kyc_verification.processing', k, now, previous);
  }

  async cancel(accountId: string, id: string, now: number): Promise<KycVerification> {
    const k = await this.load(accountId, id, now);
    if (k.status !== 'pending' && k.status !== 'requires_input') {
      throw errors.unexpectedState(
        'kyc_verification',
        `This verification is ${k.status}; only pending or requires_input verifications can be canceled.`,
      );
    }
    const previous = changing(k);
    k.status = 'canceled';
    k.completed_at = isoTime(now);
    await this.collection.update(accountId, k);
    return await this.record(accountId, 'kyc_verification.canceled', k, now, previous);
  }

  /** Runs the checks against the linked tokens (values opened in memory only) and sets the outcome. */
  private async decide(accountId: string, k: StoredKyc): Promise<void> {
    const at = k.due_ms!;
    const previous = { ...changing(k), checks: structuredClone(k.checks) };
    const tokens: { type: IdentityTokenType; value: string }[] = [];
    for (const id of k.identity_token_ids) {
      const t = await this.vault.reveal(accountId, id);
      if (t !== undefined) tokens.push(t);
    }
    const numbers = tokens.filter((t) => NUMBER_TYPES.has(t.type));
    const values = new Set(tokens.map((t) => t.value));
    for (const c of k.checks) {
      let reason: string | null = null;
      if (c.check_type === 'identity') {
        if (numbers.length === 0) reason = 'missing_identity_number';
        else if (values.has(KYC_TEST_VALUES.identityMismatch)) reason = 'identity_mismatch';
        else if (values.has(KYC_TEST_VALUES.identityUnverifiable)) reason = 'identity_unverifiable';
      } else if (c.check_type === 'watchlist') {
        if (values.has(KYC_TEST_VALUES.watchlistMatch)) reason = 'watchlist_match';
      } else if (c.check_type === 'document') {
        if (!tokens.some((t) => DOCUMENT_TYPES.has(t.type))) reason = 'missing_document';
      }
      c.status = reason ? 'failed' : 'passed';
      c.status_reason = reason;
      c.confidence_score = reason ? (REJECTING.has(reason) ? 95 : 0) : 95;
      c.completed_at = isoTime(at);
    }
    const failed = k.checks.filter((c) => c.status === 'failed');
    const rejecting = failed.find((c) => REJECTING.has(c.status_reason ?? ''));
    if (rejecting) {
      k.status = 'rejected';
      k.status_reason = rejecting.status_reason;
      k.risk_score = rejecting.status_reason === 'watchlist_match' ? 100 : 90;
    } else if (failed.length) {
      k.status = 'requires_input';
      k.status_reason = failed[0]!.status_reason;
      k.risk_score = 50;
    } else {
      k.status = 'verified';
      k.risk_score = k.verification_level === 'enhanced' ? 5 : 10;
    }
    k.completed_at = isoTime(at);
    k.due_ms = null;
    await this.collection.update(accountId, k);
    await this.record(accountId, DECIDED[k.status as keyof typeof DECIDED], k, at, previous);
  }

  nextDue(accountId: string): Promise<number | undefined> {
    return this.stored.nextDecision(accountId);
  }

  async runDue(now: number, accountId?: string, limit = -1): Promise<number> {
    const due = await this.stored.dueDecisions(now, accountId, limit);
    for (const { accountId: acct, doc } of due) await this.decide(acct, doc);
    return due.length;
  }
}

function toApi(k: StoredKyc): KycVerification {
  const { due_ms: _d, ...rest } = k;
  return rest;
}
