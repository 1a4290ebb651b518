// The double-entry ledger (docs/api.md "Ledger"): accounts, journal entries, holds, account events, hold expiry.
// Every operation runs inside the request's one transaction: checks and writes happen together, so
// the invariants (per currency debits = credits; every balance = the sum of its entries; available ≥ 0 on
// non-system accounts) hold at every committed instant. Balances are stored (exact integers, O(1) reads)
// and changed only by `post` (a journal entry's lines) and `adjustPending` (holds), in the same transaction that
// writes the entry or the hold.
import type {
  AccountType,
  CaptureHoldBody,
  CreateHoldBody,
  CreateJournalEntryBody,
  CreateLedgerAccountBody,
  Direction,
  Hold,
  JournalEntry,
  LedgerAccount,
  LedgerAccountActionBody,
  LedgerAccountEvent,
  LedgerEntry,
  ListEntriesQuery,
  ListHoldsQuery,
  ListJournalEntriesQuery,
  ListLedgerAccountsQuery,
  ReverseJournalEntryBody,
} from '../../../contract/ledger.js';
import type { List } from '../../../contract/common.js';
import type { EventType } from '../../../contract/events.js';
import type { Documents } from '../../store/seam.js';
import type { LedgerStore, StoredAccount, StoredEntry, StoredHold, StoredJournal } from './port.js';
import { newId, randomDigits } from '../../ids.js';
import { isoTime } from '../../clock.js';
import { errors } from '../../errors.js';
import { normalizeCurrency } from '../values.js';
import type { DueWork } from '../due.js';
import type { Events } from '../events.js';
import { DAY_MS } from '../../../contract/time.js';

/** Default hold lifetime when `expires_at` is not given. */
export const HOLD_DEFAULT_TTL_MS = 7 * DAY_MS;
/** Number of lines GET /ledger-accounts/{id} shows in recent_entries. */
export const RECENT_ENTRIES = 10;

export const normalBalanceOf = (type: AccountType): Direction =>
  type === 'asset' || type === 'expense' ? 'debit' : 'credit';

const opposite = (d: Direction): Direction => (d === 'debit' ? 'credit' : 'debit');

/** Who did something, for the audit trail. */
export interface Actor {
  actor?: string;
  apiKeyId?: string;
}

/** A line to post (internal form). */
interface LineSpec {
  account_id: string;
  direction: Direction;
  amount: number;
  description?: string | null;
  /** Parameter path named in errors (`entries[1].account_id`). */
  param: string;
}

interface PostSpec {
  description: string | null;
  lines: LineSpec[];
  currency?: string;
  metadata?: Record<string, string>;
  reverses?: string | null;
  hold_id?: string | null;
  payment_id?: string | null;
}

export class Ledger implements DueWork {
  readonly name = 'ledger hold expiry';
  readonly accounts: Documents<StoredAccount>;
  readonly journals: Documents<StoredJournal>;
  readonly entries: Documents<StoredEntry>;
  readonly holds: Documents<StoredHold>;
  readonly events: Documents<LedgerAccountEvent>;

  constructor(
    private readonly stored: LedgerStore,
    private readonly eventLog: Events,
  ) {
    this.accounts = stored.accounts;
    this.journals = stored.journals;
    this.entries = stored.entries;
    this.holds = stored.holds;
    this.events = stored.events;
  }

  // ------------------------------------------------------------------------------------------ accounts

  async create(
    accountId: string,
    body: CreateLedgerAccountBody,
    now: number,
    who: Actor,
    systemKey: string | null = null,
  ): Promise<LedgerAccount> {
    const currency = normalizeCurrency(body.currency, 'currency');
    let accountNumber = body.account_number;
    if (accountNumber !== undefined) {
      if (await this.stored.accountNumberTaken(accountId, accountNumber)) {
        throw errors.conflict(
          'resource_exists',
          `A ledger account with account_number '${accountNumber}' already exists.`,
          'account_number',
        );
      }
    } else {
      accountNumber = await this.newAccountNumber(accountId);
    }
    const acct: StoredAccount = {
      id: newId('la'),
      object: 'ledger_account',
      account_number: accountNumber,
      name: body.name,
      description: body.description ?? null,
      account_type: body.account_type,
      normal_balance: normalBalanceOf(body.account_type),
      status: 'active',
      currency,
      balance: 0,
      available_balance: 0,
      pending_balance: 0,
      balance_updated_at: isoTime(now),
      customer_id: body.customer_id ?? null,
      external_reference: body.external_reference ?? null,
      is_system_account: body.is_system_account ?? systemKey !== null,
      frozen_at: null,
      frozen_reason: null,
      frozen_by: null,
      closed_at: null,
      created_at: isoTime(now),
      metadata: body.metadata ?? {},
      livemode: false,
      system_key: systemKey,
    };
    await this.accounts.insert(accountId, acct);
    await this.recordEvent(accountId, acct.id, 'created', null, who, now);
    const api = toApiAccount(acct);
    await this.eventLog.record(accountId, 'ledger_account.created', api, { at: now });
    return api;
  }

  private async newAccountNumber(accountId: string): Promise<string> {
    for (;;) {
      const n = `LA${randomDigits(12)}`;
      if (!(await this.stored.accountNumberTaken(accountId, n))) return n;
    }
  }

  /** GET: the account with recent_entries (last 10, newest first) and active_holds (holds expire first). */
  async get(accountId: string, id: string): Promise<LedgerAccount> {
    const acct = await this.accounts.require(accountId, id, 'ledger_account', 'account_id');
    const recent = (await this.stored.recentEntries(accountId, id, RECENT_ENTRIES)).map(toApiEntry);
    const active = (await this.stored.activeHolds(accountId, id)).map(toApiHold);
    return { ...toApiAccount(acct), recent_entries: recent, active_holds: active.reverse() };
  }

  async list(accountId: string, url: string, q: ListLedgerAccountsQuery): Promise<List<LedgerAccount>> {
    const page = await this.accounts.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: {
        status: q.status,
        customer_id: q.customer,
        currency: q.currency ? normalizeCurrency(q.currency, 'currency') : undefined,
      },
    });
    return { ...page, data: page.data.map(toApiAccount) };
  }

  async freeze(
    accountId: string,
    id: string,
    body: LedgerAccountActionBody,
    now: number,
    who: Actor,
  ): Promise<LedgerAccount> {
    const acct = await this.accounts.require(accountId, id, 'ledger_account', 'account_id');
    if (acct.status !== 'active')
      throw errors.unexpectedState(
        'ledger_account',
        `This ledger account is ${acct.status}; only active accounts can be frozen.`,
      );
    if (acct.system_key)
      throw errors.unexpectedState(
        'ledger_account',
        'This system account receives payments automatically and cannot be frozen.',
      );
    const actor = actorOf(who);
    const previous = {
      status: acct.status,
      frozen_at: acct.frozen_at,
      frozen_reason: acct.frozen_reason,
      frozen_by: acct.frozen_by,
    };
    acct.status = 'frozen';
    acct.frozen_at = isoTime(now);
    acct.frozen_reason = body.reason ?? null;
    acct.frozen_by = actor;
    await this.accounts.update(accountId, acct);
    await this.recordEvent(accountId, id, 'frozen', body.reason ?? null, who, now);
    return await this.recorded(accountId, 'ledger_account.frozen', toApiAccount(acct), now, previous);
  }

  async unfreeze(
    accountId: string,
    id: string,
    body: LedgerAccountActionBody,
    now: number,
    who: Actor,
  ): Promise<LedgerAccount> {
    const acct = await this.accounts.require(accountId, id, 'ledger_account', 'account_id');
    if (acct.status !== 'frozen')
      throw errors.unexpectedState(
        'ledger_account',
        `This ledger account is ${acct.status}; only frozen accounts can be unfrozen.`,
      );
    const previous = {
      status: acct.status,
      frozen_at: acct.frozen_at,
      frozen_reason: acct.frozen_reason,
      frozen_by: acct.frozen_by,
    };
    acct.status = 'active';
    acct.frozen_at = null;
    acct.frozen_reason = null;
    acct.frozen_by = null;
    await this.accounts.update(accountId, acct);
    await this.recordEvent(accountId, id, 'unfrozen', body.reason ?? null, who, now);
    return await this.recorded(accountId, 'ledger_account.unfrozen', toApiAccount(acct), now, previous);
  }

  async close(
    accountId: string,
    id: string,
    body: LedgerAccountActionBody,
    now: number,
    who: Actor,
  ): Promise<LedgerAccount> {
    await this.runDue(now, accountId);
    const acct = await this.accounts.require(accountId, id, 'ledger_account', 'account_id');
    if (acct.status === 'closed')
      throw errors.unexpectedState('ledger_account', 'This ledger account is already closed.');
    if (acct.system_key)
      throw errors.unexpectedState(
        'ledger_account',
        'This system account receives payments automatically and cannot be closed.',
      );
    if (acct.pending_balance !== 0)
      throw errors.unexpectedState(
        'ledger_account',
        'This ledger account has active holds; release or capture them before closing it.',
      );
    if (acct.balance !== 0)
      throw errors.unexpectedState(
        'ledger_account',
        `This ledger account's balance is ${acct.balance}, not zero; move it out before closing the account.`,
      );
    const previous = { status: acct.status, closed_at: acct.closed_at };
    acct.status = 'closed';
    acct.closed_at = isoTime(now);
    await this.accounts.update(accountId, acct);
    await this.recordEvent(accountId, id, 'closed', body.reason ?? null, who, now);
    return await this.recorded(accountId, 'ledger_account.closed', toApiAccount(acct), now, previous);
  }

  /** Records `type` for `object` (as the API shows it) in the event log; returns the object. */
  private async recorded<T extends { id: string; object: string }>(
    accountId: string,
    type: EventType,
    object: T,
    at: number,
    previous?: object,
  ): Promise<T> {
    await this.eventLog.record(accountId, type, object, { at, previous });
    return object;
  }

  async listEvents(accountId: string, id: string, url: string, q: ListEntriesQuery): Promise<List<LedgerAccountEvent>> {
    await this.accounts.require(accountId, id, 'ledger_account', 'account_id');
    return await this.events.list(accountId, url, { ...q, where: { ledger_account_id: id } });
  }

  private async recordEvent(
    accountId: string,
    ledgerAccountId: string,
    type: LedgerAccountEvent['type'],
    reason: string | null,
    who: Actor,
    now: number,
  ): Promise<void> {
    await this.events.insert(accountId, {
      id: newId('evt'),
      object: 'ledger_account_event',
      ledger_account_id: ledgerAccountId,
      type,
      reason,
      actor: actorOf(who),
      api_key_id: who.apiKeyId ?? null,
      created_at: isoTime(now),
    });
  }

  /**
   * The per-currency system accounts (processor clearing asset, merchant balance liability), created on demand:
   * both read by one statement, as every captured or refunded payment posts to the two.
   */
  async systemAccounts(
    accountId: string,
    currency: string,
    now: number,
  ): Promise<{ clearing: StoredAccount; merchant: StoredAccount }> {
    const keys = { clearing: `processor_clearing:${currency}`, merchant: `merchant_balance:${currency}` };
    const found = await this.stored.systemAccounts(accountId, [keys.clearing, keys.merchant]);
    const clearing =
      found.find((a) => a.system_key === keys.clearing) ??
      (await this.createSystemAccount(accountId, 'processor_clearing', currency, keys.clearing, now));
    const merchant =
      found.find((a) => a.system_key === keys.merchant) ??
      (await this.createSystemAccount(accountId, 'merchant_balance', currency, keys.merchant, now));
    return { clearing, merchant };
  }

  private async createSystemAccount(
    accountId: string,
    kind: 'processor_clearing' | 'merchant_balance',
    currency: string,
    key: string,
    now: number,
  ): Promise<StoredAccount> {
    const name = kind === 'processor_clearing' ? `Processor clearing (${currency})` : `Merchant balance (${currency})`;
    const created = await this.create(
      accountId,
      {
        name,
        account_type: kind === 'processor_clearing' ? 'asset' : 'liability',
        currency,
        description: `System account: ${kind.replace('_', ' ')}`,
        is_system_account: true,
      },
      now,
      { actor: 'system' },
      key,
    );
    return await this.accounts.require(accountId, created.id, 'ledger_account');
  }

  // ----------------------------------------------------------------------------------- journal entries

  async postJournal(accountId: string, body: CreateJournalEntryBody, now: number): Promise<JournalEntry> {
    return await this.post(
      accountId,
      {
        description: body.description ?? null,
        currency: body.currency,
        metadata: body.metadata,
        lines: body.entries.map((e, i) => ({ ...e, param: `entries[${i}]` })),
      },
      now,
    );
  }

  async reverse(accountId: string, id: string, body: ReverseJournalEntryBody, now: number): Promise<JournalEntry> {
    const original = await this.journals.require(accountId, id, 'journal_entry', 'journal_entry_id');
    if (original.reverses)
      throw errors.invalidRequest(
        'journal_entry_is_reversal',
        `Journal entry ${id} is itself a reversal; post a new entry instead.`,
        'journal_entry_id',
      );
    const already = await this.reversedBy(accountId, id);
    if (already)
      throw errors.unexpectedState('journal_entry', `Journal entry ${id} was already reversed by ${already}.`);
    return await this.post(
      accountId,
      {
        description: body.description ?? `Reversal of ${id}${original.description ? `: ${original.description}` : ''}`,
        metadata: body.metadata,
        reverses: id,
        lines: original.entries.map((l, i) => ({
          account_id: l.account_id,
          direction: opposite(l.direction),
          amount: l.amount,
          description: l.description,
          param: `entries[${i}]`,
        })),
      },
      now,
    );
  }

  async getJournal(accountId: string, id: string): Promise<JournalEntry> {
    const j = await this.journals.require(accountId, id, 'journal_entry', 'journal_entry_id');
    return { ...j, reversed_by: await this.reversedBy(accountId, id) };
  }

  async listJournals(accountId: string, url: string, q: ListJournalEntriesQuery): Promise<List<JournalEntry>> {
    const page = await this.journals.list(accountId, url, q);
    const data: JournalEntry[] = [];
    for (const j of page.data) data.push({ ...j, reversed_by: await this.reversedBy(accountId, j.id) });
    return { ...page, data };
  }

  private reversedBy(accountId: string, id: string): Promise<string | null> {
    return this.stored.reversalOf(accountId, id);
  }

  async listEntries(accountId: string, id: string, url: string, q: ListEntriesQuery): Promise<List<LedgerEntry>> {
    await this.accounts.require(accountId, id, 'ledger_account', 'account_id');
    const page = await this.entries.list(accountId, url, { ...q, where: { ledger_account_id: id } });
    return { ...page, data: page.data.map(toApiEntry) };
  }

  /**
   * Validates and posts one balanced journal entry: ≥ 2 lines, one currency, debits = credits, every account
   * active, no non-system account below 0 available. All checks run before the first write.
   */
  private async post(
    accountId: string,
    spec: PostSpec,
    now: number,
    loaded: StoredAccount[] = [],
  ): Promise<JournalEntry> {
    // Accounts the caller read in this transaction are used as read (a payment's system accounts); the others are
    // read together.
    const accts = new Map<string, StoredAccount>(loaded.map((a) => [a.id, a]));
    const unread = [...new Set(spec.lines.map((l) => l.account_id))].filter((id) => !accts.has(id));
    if (unread.length) for (const a of await this.stored.accountsOf(accountId, unread)) accts.set(a.id, a);
    for (const line of spec.lines)
      if (!accts.has(line.account_id))
        throw errors.notFound('ledger_account', line.account_id, `${line.param}.account_id`);
    const first = accts.get(spec.lines[0]!.account_id)!;
    const currency = spec.currency ? normalizeCurrency(spec.currency, 'currency') : first.currency;
    for (const line of spec.lines) {
      const a = accts.get(line.account_id)!;
      if (a.currency !== currency) {
        throw errors.invalidRequest(
          'currency_mismatch',
          `All lines of a journal entry must be in one currency: ${a.id} is ${a.currency}, the entry is ${currency}.`,
          `${line.param}.account_id`,
        );
      }
    }
    let debits = 0;
    let credits = 0;
    for (const line of spec.lines) {
      if (line.direction === 'debit') debits += line.amount;
      else credits += line.amount;
    }
    if (debits !== credits) {
      throw errors.invalidRequest(
        'journal_entry_unbalanced',
        `Debits (${debits}) must equal credits (${credits}).`,
        'entries',
      );
    }
    if (debits === 0)
      throw errors.invalidRequest(
        'journal_entry_unbalanced',
        'A journal entry needs at least one debit and one credit.',
        'entries',
      );
    for (const a of accts.values()) {
      if (a.status === 'frozen')
        throw errors.conflict(
          'ledger_account_frozen',
          `Ledger account ${a.id} is frozen; no entries can be posted to it until it is unfrozen.`,
        );
      if (a.status === 'closed')
        throw errors.unexpectedState(
          'ledger_account',
          `Ledger account ${a.id} is closed; no entries can be posted to it.`,
        );
    }
    // Net effect per account in its normal direction.
    const net = new Map<string, number>();
    for (const line of spec.lines) {
      const a = accts.get(line.account_id)!;
      net.set(a.id, (net.get(a.id) ?? 0) + (line.direction === a.normal_balance ? line.amount : -line.amount));
    }
    for (const [id, delta] of net) {
      const a = accts.get(id)!;
      const balance = a.balance + delta;
      if (!Number.isSafeInteger(balance))
        throw errors.invalidRequest(
          'amount_too_large',
          `The balance of ${id} would exceed the largest amount this ledger keeps exactly.`,
          'entries',
        );
      if (delta < 0 && !a.is_system_account && balance - a.pending_balance < 0) {
        throw errors.conflict(
          'insufficient_available_balance',
          `Ledger account ${id} has ${a.balance - a.pending_balance} available; this entry would take ${-delta}.`,
        );
      }
    }
    // Writes.
    const journal: StoredJournal = {
      id: newId('je'),
      object: 'journal_entry',
      description: spec.description,
      currency,
      amount: debits,
      entries: [],
      reverses: spec.reverses ?? null,
      hold_id: spec.hold_id ?? null,
      payment_id: spec.payment_id ?? null,
      metadata: spec.metadata ?? {},
      created_at: isoTime(now),
      livemode: false,
    };
    const lines: StoredEntry[] = [];
    for (const line of spec.lines) {
      const a = accts.get(line.account_id)!;
      const delta = line.direction === a.normal_balance ? line.amount : -line.amount;
      a.balance += delta;
      a.available_balance = a.balance - a.pending_balance;
      a.balance_updated_at = isoTime(now);
      const entry: StoredEntry = {
        id: newId('ent'),
        object: 'ledger_entry',
        ledger_account_id: a.id,
        journal_entry_id: journal.id,
        entry_type: line.direction,
        amount: line.amount,
        currency,
        description: line.description ?? spec.description,
        running_balance: a.balance,
        created_at: isoTime(now),
        delta,
      };
      lines.push(entry);
      journal.entries.push({
        id: entry.id,
        account_id: a.id,
        direction: line.direction,
        amount: line.amount,
        description: line.description ?? null,
      });
    }
    await this.stored.postJournalEntry(accountId, journal, lines, [...accts.values()]);
    return await this.recorded(accountId, 'journal_entry.created', { ...journal, reversed_by: null }, now);
  }

  // --------------------------------------------------------------------------------------------- holds

  async createHold(accountId: string, ledgerAccountId: string, body: CreateHoldBody, now: number): Promise<Hold> {
    await this.runDue(now, accountId);
    const a = await this.accounts.require(accountId, ledgerAccountId, 'ledger_account', 'account_id');
    let expiresMs: number = now + HOLD_DEFAULT_TTL_MS;
    if (body.expires_at !== undefined) {
      expiresMs = Date.parse(body.expires_at);
      if (!(expiresMs > now)) throw errors.parameterInvalid('expires_at', 'must be in the future');
    }
    if (a.status === 'frozen')
      throw errors.conflict(
        'ledger_account_frozen',
        `Ledger account ${a.id} is frozen; no holds can be placed on it until it is unfrozen.`,
      );
    if (a.status === 'closed') throw errors.unexpectedState('ledger_account', `Ledger account ${a.id} is closed.`);
    if (!a.is_system_account && a.balance - a.pending_balance < body.amount) {
      throw errors.conflict(
        'insufficient_available_balance',
        `Ledger account ${a.id} has ${a.balance - a.pending_balance} available; the hold needs ${body.amount}.`,
      );
    }
    const hold: StoredHold = {
      id: newId('hold'),
      object: 'hold',
      ledger_account_id: a.id,
      amount: body.amount,
      currency: a.currency,
      description: body.description ?? null,
      status: 'active',
      expires_at: isoTime(expiresMs),
      created_at: isoTime(now),
      captured_at: null,
      released_at: null,
      expired_at: null,
      captured_amount: null,
      destination_account_id: null,
      journal_entry_id: null,
      metadata: body.metadata ?? {},
      expires_ms: expiresMs,
    };
    await this.holds.insert(accountId, hold);
    await this.adjustPending(accountId, a, body.amount, now);
    return await this.recorded(accountId, 'hold.created', toApiHold(hold), now);
  }

  async getHold(accountId: string, id: string): Promise<Hold> {
    return toApiHold(await this.holds.require(accountId, id, 'hold', 'hold_id'));
  }

  async listHolds(accountId: string, ledgerAccountId: string, url: string, q: ListHoldsQuery): Promise<List<Hold>> {
    await this.accounts.require(accountId, ledgerAccountId, 'ledger_account', 'account_id');
    const page = await this.holds.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: { ledger_account_id: ledgerAccountId, status: q.status },
    });
    return { ...page, data: page.data.map(toApiHold) };
  }

  /** Captures (all or part of) an active hold into `destination_account_id`, posting the journal entry; any rest is released. */
  async captureHold(accountId: string, id: string, body: CaptureHoldBody, now: number): Promise<Hold> {
    await this.runDue(now, accountId);
    const hold = await this.holds.require(accountId, id, 'hold', 'hold_id');
    if (hold.status !== 'active')
      throw errors.unexpectedState('hold', `This hold is ${hold.status}; only active holds can be captured.`);
    const amount = body.amount ?? hold.amount;
    if (amount > hold.amount)
      throw errors.parameterInvalid('amount', `must be at most the held amount (${hold.amount})`);
    if (body.destination_account_id === hold.ledger_account_id)
      throw errors.parameterInvalid('destination_account_id', 'must differ from the held account');
    const source = await this.accounts.require(accountId, hold.ledger_account_id, 'ledger_account');
    await this.accounts.require(accountId, body.destination_account_id, 'ledger_account', 'destination_account_id');
    // The hold stops counting as pending in the same transaction that posts the money out.
    await this.adjustPending(accountId, source, -hold.amount, now);
    const journal = await this.post(
      accountId,
      {
        description: body.description ?? hold.description ?? `Capture of hold ${hold.id}`,
        hold_id: hold.id,
        lines: [
          {
            account_id: source.id,
            direction: opposite(source.normal_balance),
            amount,
            param: 'hold',
            description: null,
          },
          {
            account_id: body.destination_account_id,
            direction: source.normal_balance,
            amount,
            param: 'destination_account_id',
            description: null,
          },
        ],
      },
      now,
    );
    const previous = toApiHold(hold);
    hold.status = 'captured';
    hold.captured_at = isoTime(now);
    hold.captured_amount = amount;
    hold.destination_account_id = body.destination_account_id;
    hold.journal_entry_id = journal.id;
    await this.holds.update(accountId, hold);
    return await this.recorded(accountId, 'hold.captured', toApiHold(hold), now, previous);
  }

  async releaseHold(accountId: string, id: string, now: number): Promise<Hold> {
    await this.runDue(now, accountId);
    const hold = await this.holds.require(accountId, id, 'hold', 'hold_id');
    if (hold.status !== 'active')
      throw errors.unexpectedState('hold', `This hold is ${hold.status}; only active holds can be released.`);
    hold.status = 'released';
    hold.released_at = isoTime(now);
    // The held account before the hold, as a capture writes them: two requests on one hold never wait for each
    // other's second row (a deadlock, on an engine with row locks).
    await this.adjustPending(
      accountId,
      await this.accounts.require(accountId, hold.ledger_account_id, 'ledger_account'),
      -hold.amount,
      now,
    );
    await this.holds.update(accountId, hold);
    return await this.recorded(accountId, 'hold.released', toApiHold(hold), now, {
      status: 'active',
      released_at: null,
    });
  }

  private async adjustPending(accountId: string, a: StoredAccount, delta: number, now: number): Promise<void> {
    a.pending_balance += delta;
    a.available_balance = a.balance - a.pending_balance;
    a.balance_updated_at = isoTime(now);
    await this.accounts.update(accountId, a);
  }

  // DueWork: active holds past expires_at become expired and stop counting as pending.
  nextDue(accountId: string): Promise<number | undefined> {
    return this.stored.nextHoldExpiry(accountId);
  }

  async runDue(now: number, accountId?: string, limit = -1): Promise<number> {
    const due = await this.stored.expiredHolds(now, accountId, limit);
    for (const { accountId: acct, doc } of due) await this.expireHold(acct, doc, now);
    return due.length;
  }

  private async expireHold(accountId: string, doc: StoredHold, now: number): Promise<void> {
    doc.status = 'expired';
    doc.expired_at = isoTime(doc.expires_ms ?? now);
    // The account before the hold, as a capture and a release write them.
    await this.adjustPending(
      accountId,
      await this.accounts.require(accountId, doc.ledger_account_id, 'ledger_account'),
      -doc.amount,
      now,
    );
    await this.holds.update(accountId, doc);
    await this.recorded(accountId, 'hold.expired', toApiHold(doc), doc.expires_ms ?? now, {
      status: 'active',
      expired_at: null,
    });
  }

  /** Runs this one hold's expiry if its time has come (test triggers); returns the hold. */
  async expireHoldIfDue(accountId: string, id: string, now: number): Promise<Hold> {
    const hold = await this.holds.require(accountId, id, 'hold', 'hold_id');
    if (hold.status === 'active' && hold.expires_ms !== null && hold.expires_ms <= now)
      await this.expireHold(accountId, hold, now);
    return toApiHold(hold);
  }

  // ----------------------------------------------------------------------------------- payment events

  /** A captured payment: debit processor clearing (asset), credit merchant balance (liability). */
  async postPayment(
    accountId: string,
    kind: 'captured' | 'refunded',
    ev: { payment_id: string; amount: number; currency: string; at: number },
  ): Promise<JournalEntry | undefined> {
    // Nothing moved (e.g. a zero-amount capture): nothing to post, and the payment must not fail for it.
    if (!(Number.isSafeInteger(ev.amount) && ev.amount > 0)) return undefined;
    const currency = normalizeCurrency(ev.currency, 'currency');
    const { clearing, merchant } = await this.systemAccounts(accountId, currency, ev.at);
    const captured = kind === 'captured';
    return await this.post(
      accountId,
      {
        description: `Payment ${ev.payment_id} ${kind}`,
        payment_id: ev.payment_id,
        metadata: { payment_id: ev.payment_id },
        lines: [
          { account_id: clearing.id, direction: captured ? 'debit' : 'credit', amount: ev.amount, param: 'payment' },
          { account_id: merchant.id, direction: captured ? 'credit' : 'debit', amount: ev.amount, param: 'payment' },
        ],
      },
      ev.at,
      [clearing, merchant],
    );
  }

  /** For tests and operators: per currency debits vs credits, and every stored balance vs the sum of its entries. */
  audit(accountId: string): Promise<{
    currencies: { currency: string; debits: number; credits: number }[];
    mismatched: string[];
  }> {
    return this.stored.audit(accountId);
  }
}

const actorOf = (who: Actor): string => who.actor ?? who.apiKeyId ?? 'unknown';

function toApiAccount(a: StoredAccount): LedgerAccount {
  const { system_key: _k, ...rest } = a;
  return rest;
}

function toApiEntry(e: StoredEntry): LedgerEntry {
  const { delta: _d, ...rest } = e;
  return rest;
}

function toApiHold(h: StoredHold): Hold {
  const { expires_ms: _e, ...rest } = h;
  return rest;
}
