// ACH bank accounts (contract §8): ABA checksum, full numbers sealed at rest and never returned or logged,
// micro-deposit verification (32 and 45 cents, three attempts, ten days).
import type {
  BankAccount,
  CreateBankAccountBody,
  ListBankAccountsQuery,
  MicrodepositResult,
  UpdateBankAccountBody,
  VerifyResult,
} from '../../../contract/payments.js';
import type { List } from '../../../contract/common.js';
import type { Documents } from '../../store/seam.js';
import type { Sealer } from '../../crypto.js';
import { newId } from '../../ids.js';
import { isoTime, unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { mergeMetadata, normalizeCurrency } from '../values.js';
import { ACH_TEST } from '../testcards.js';
import type { Events } from '../events.js';
import type { EventType } from '../../../contract/events.js';
import { recordUpdate } from '../record.js';
import { DAY_MS } from '../../../contract/time.js';
import type { AchOutcome, PaymentsPort, StoredBankAccount } from './persistence.js';

export const MICRODEPOSIT_AMOUNTS = [32, 45] as const;
export const MICRODEPOSIT_TTL_MS = 10 * DAY_MS;
export const MICRODEPOSIT_ATTEMPTS = 3;

/** ABA routing number checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
export function abaValid(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const d = [...routing].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

export class BankAccounts {
  readonly collection: Documents<StoredBankAccount>;

  constructor(
    private readonly stored: PaymentsPort,
    private readonly sealer: Sealer,
    private readonly events: Events,
  ) {
    this.collection = stored.bankAccounts;
  }

  private toApi(b: StoredBankAccount): BankAccount {
    const { account_number_sealed: _a, routing_number_sealed: _r, microdeposit_expires_ms: _e, ...api } = b;
    // created_at is `created` as a date-time, made on read (so accounts stored before it have one too).
    return { ...api, created_at: isoTime(b.created * 1000) };
  }

  async create(accountId: string, body: CreateBankAccountBody, now: number): Promise<BankAccount> {
    const routing = body.routing_number.trim();
    const number = body.account_number.trim();
    if (!/^\d{9}$/.test(routing)) throw errors.parameterInvalid('routing_number', 'must be 9 digits');
    if (!abaValid(routing)) throw errors.parameterInvalid('routing_number', 'fails the ABA checksum');
    if (!/^\d{4,17}$/.test(number)) throw errors.parameterInvalid('account_number', 'must be 4 to 17 digits');
    if (routing === ACH_TEST.routing && number === ACH_TEST.rejectedAtCreation) {
      throw errors.invalidRequest(
        'bank_account_rejected',
        `The bank rejected the account ending ${number.slice(-4)}.`,
        'account_number',
      );
    }
    const country = (body.country ?? 'US').toUpperCase();
    const currency = normalizeCurrency(body.currency ?? 'USD', 'currency');
    const customer = body.customer_id ?? null;
    if (body.is_default && customer === null)
      throw errors.parameterInvalid('is_default', 'needs a customer_id: an account is the default of a customer');
    const hasDefault =
      customer !== null && (await this.stored.bankAccountsOfCustomer(accountId, customer)).some((b) => b.is_default);
    const isDefault = customer !== null && (body.is_default ?? !hasDefault);
    if (isDefault) await this.clearDefault(accountId, customer, now);
    const b: StoredBankAccount = {
      id: newId('ba'),
      object: 'bank_account',
      customer_id: customer,
      holder_name: body.holder_name,
      account_type: body.account_type ?? 'checking',
      last4: number.slice(-4),
      routing_last4: routing.slice(-4),
      bank_name: routing === ACH_TEST.routing ? 'STRIPE TEST BANK' : 'TEST BANK',
      country,
      currency,
      is_default: isDefault,
      verification_status: 'unverified',
      verification_method: null,
      microdeposits: null,
      nickname: body.nickname ?? null,
      metadata: body.metadata ?? {},
      created: unixSeconds(now),
      livemode: false,
      account_number_sealed: this.sealer.seal(number),
      routing_number_sealed: this.sealer.seal(routing),
      microdeposit_expires_ms: null,
    };
    await this.collection.insert(accountId, b);
    return this.record(accountId, 'bank_account.created', b, now);
  }

  /** Records `type` for the account as the API shows it (last4 only: never a full number); returns that object. */
  private async record(
    accountId: string,
    type: EventType,
    b: StoredBankAccount,
    at: number,
    previous?: object,
  ): Promise<BankAccount> {
    const api = this.toApi(b);
    await this.events.record(accountId, type, api, { at, previous });
    return api;
  }

  /** Stores a changed account; bank_account.updated when the API shows a change. */
  private async save(accountId: string, b: StoredBankAccount, before: BankAccount, now: number): Promise<BankAccount> {
    await this.collection.update(accountId, b);
    const api = this.toApi(b);
    await recordUpdate(this.events, accountId, 'bank_account.updated', api, before, now);
    return api;
  }

  /** A customer has one default account: the others of `customer` stop being it. */
  private async clearDefault(accountId: string, customer: string, now: number, except?: string): Promise<void> {
    for (const doc of await this.stored.bankAccountsOfCustomer(accountId, customer)) {
      if (doc.is_default && doc.id !== except) {
        const before = this.toApi(doc);
        doc.is_default = false;
        await this.save(accountId, doc, before, now);
      }
    }
  }

  /**
   * PATCH /bank-accounts/{id}: nickname (null clears it), is_default, metadata (merged). Unlike the live service,
   * which clears every other account's default in the whole merchant account, only the same customer's.
   */
  async update(accountId: string, id: string, body: UpdateBankAccountBody, now: number): Promise<BankAccount> {
    const b = await this.load(accountId, id);
    const before = this.toApi(b);
    if (body.is_default === true) {
      if (b.customer_id === null)
        throw errors.parameterInvalid('is_default', 'needs a customer_id: an account is the default of a customer');
      await this.clearDefault(accountId, b.customer_id, now, b.id);
    }
    if (body.is_default !== undefined) b.is_default = body.is_default;
    if (body.nickname !== undefined) b.nickname = body.nickname;
    if (body.metadata !== undefined) b.metadata = mergeMetadata(b.metadata, body.metadata);
    return this.save(accountId, b, before, now);
  }

  private load(accountId: string, id: string): Promise<StoredBankAccount> {
    return this.collection.require(accountId, id, 'bank_account', 'bank_account_id');
  }

  async get(accountId: string, id: string): Promise<BankAccount> {
    return this.toApi(await this.load(accountId, id));
  }

  async list(accountId: string, url: string, q: ListBankAccountsQuery): Promise<List<BankAccount>> {
    const page = await this.collection.list(accountId, url, {
      ...q,
      where: { customer_id: q.customer_id, verification_status: q.verification_status },
    });
    return { ...page, data: page.data.map((b) => this.toApi(b)) };
  }

  async delete(
    accountId: string,
    id: string,
    now: number,
  ): Promise<{ id: string; object: 'bank_account'; deleted: true }> {
    const b = await this.load(accountId, id);
    await this.collection.delete(accountId, id);
    await this.record(accountId, 'bank_account.deleted', b, now);
    return { id, object: 'bank_account', deleted: true };
  }

  async initiateMicrodeposits(accountId: string, id: string, now: number): Promise<MicrodepositResult> {
    const b = await this.load(accountId, id);
    // Pending with deposits still valid: the same answer. Pending with expired deposits: a new round (below), else
    // the account could never be verified again (verify refuses expired deposits).
    const expired = b.microdeposit_expires_ms !== null && now >= b.microdeposit_expires_ms;
    if (b.verification_status === 'pending' && !expired)
      return { status: 'pending', method: 'microdeposits', expires_at: b.microdeposits!.expires_at };
    if (b.verification_status !== 'unverified' && b.verification_status !== 'pending') {
      throw errors.unexpectedState(
        'bank_account',
        `This bank account is ${b.verification_status}; micro-deposits can only be sent to an unverified account.`,
      );
    }
    const before = this.toApi(b);
    b.verification_status = 'pending';
    b.verification_method = 'microdeposits';
    b.microdeposit_expires_ms = now + MICRODEPOSIT_TTL_MS;
    b.microdeposits = { expires_at: isoTime(b.microdeposit_expires_ms), attempts_remaining: MICRODEPOSIT_ATTEMPTS };
    await this.save(accountId, b, before, now);
    return { status: 'pending', method: 'microdeposits', expires_at: b.microdeposits.expires_at };
  }

  async verify(accountId: string, id: string, amounts: number[], now: number): Promise<VerifyResult> {
    const b = await this.load(accountId, id);
    if (b.verification_status !== 'pending') {
      throw errors.unexpectedState(
        'bank_account',
        `This bank account is ${b.verification_status}; only a pending account can be verified.`,
      );
    }
    if (b.microdeposit_expires_ms !== null && now >= b.microdeposit_expires_ms) {
      throw errors.unexpectedState(
        'bank_account',
        'The micro-deposits for this bank account expired; they were valid for 10 days.',
      );
    }
    const before = { ...this.toApi(b), microdeposits: { ...b.microdeposits! } };
    const md = b.microdeposits!;
    const sorted = [...amounts].sort((x, y) => x - y);
    if (sorted[0] === MICRODEPOSIT_AMOUNTS[0] && sorted[1] === MICRODEPOSIT_AMOUNTS[1]) {
      b.verification_status = 'verified';
    } else {
      md.attempts_remaining = Math.max(0, md.attempts_remaining - 1);
      if (md.attempts_remaining === 0) b.verification_status = 'failed';
    }
    if (b.verification_status === 'pending') await this.save(accountId, b, before, now);
    else {
      await this.collection.update(accountId, b);
      await this.record(
        accountId,
        b.verification_status === 'verified' ? 'bank_account.verified' : 'bank_account.verification_failed',
        b,
        now,
        before,
      );
    }
    return {
      verified: b.verification_status === 'verified',
      attempts_remaining: md.attempts_remaining,
      verification_status: b.verification_status,
    };
  }

  /** For an ACH debit: the account (404 / 400 bank_account_unverified) and what its debit will do. */
  async forDebit(accountId: string, id: string): Promise<{ account: BankAccount; outcome: AchOutcome }> {
    const b = await this.collection.require(accountId, id, 'bank_account', 'bank_account.bank_account_id');
    if (b.verification_status !== 'verified') {
      throw errors.invalidRequest(
        'bank_account_unverified',
        `This bank account is ${b.verification_status}; verify it with micro-deposits before paying with it.`,
        'bank_account.bank_account_id',
      );
    }
    const routing = this.sealer.open(b.routing_number_sealed);
    const number = this.sealer.open(b.account_number_sealed);
    const outcome: AchOutcome =
      routing === ACH_TEST.routing && number === ACH_TEST.insufficientFunds ? 'insufficient_funds' : 'settles';
    return { account: this.toApi(b), outcome };
  }
}
