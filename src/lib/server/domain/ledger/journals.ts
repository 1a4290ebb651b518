// Journal entries: posting one (every check before the first write, then its lines and the balances they move),
// reversing one, reading them and an account's entries; a captured or refunded payment posts itself here.
import type {
  CreateJournalEntryBody,
  Direction,
  JournalEntry,
  LedgerEntry,
  ListEntriesQuery,
  ListJournalEntriesQuery,
  ReverseJournalEntryBody,
} from '../../../contract/ledger.js';
import type { List } from '../../../contract/common.js';
import { newId } from '../../ids.js';
import { isoTime } from '../../clock.js';
import { errors } from '../../errors.js';
import { normalizeCurrency } from '../values.js';
import { LedgerAccounts } from './accounts.js';
import { opposite, toApiEntry } from './base.js';
import type { StoredAccount, StoredEntry, StoredJournal } from './port.js';

/** A line to post (internal form). */
interface LineSpec {
  account_id: string;
  direction: Direction;
  amount: number;
  description?: string | null;
  /** Parameter path named in errors (`entries[1].account_id`). */
  param: string;
}

/** A journal entry to post (internal form). */
interface PostSpec {
  description: string | null;
  lines: LineSpec[];
  currency?: string;
  metadata?: Record<string, string>;
  reverses?: string | null;
  hold_id?: string | null;
  payment_id?: string | null;
}

/** Journal entries, over the accounts they move. */
export abstract class LedgerJournals extends LedgerAccounts {
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
  protected async post(
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

  /**
   * A captured payment debits processor clearing (asset) and credits merchant balance (liability); a refund the
   * reverse.
   */
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
}
