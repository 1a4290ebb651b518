// Ledger accounts: opening them (the per-currency system accounts on demand), reading them, freezing, unfreezing
// and closing them, each change kept in the account's own audit trail (its account events).
import type {
  AccountType,
  CreateLedgerAccountBody,
  Direction,
  LedgerAccount,
  LedgerAccountActionBody,
  LedgerAccountEvent,
  ListEntriesQuery,
  ListLedgerAccountsQuery,
} from '../../../contract/ledger.js';
import type { List } from '../../../contract/common.js';
import { newId, randomDigits } from '../../ids.js';
import { isoTime } from '../../clock.js';
import { errors } from '../../errors.js';
import { normalizeCurrency } from '../values.js';
import { LedgerBase, toApiEntry, toApiHold } from './base.js';
import type { StoredAccount } from './port.js';

/** Number of lines GET /ledger-accounts/{id} shows in recent_entries. */
export const RECENT_ENTRIES = 10;

export const normalBalanceOf = (type: AccountType): Direction =>
  type === 'asset' || type === 'expense' ? 'debit' : 'credit';

/** Who did something, for the audit trail. */
export interface Actor {
  actor?: string;
  apiKeyId?: string;
}

/** The ledger's accounts and their audit trail; the next jobs build on it (ledger.ts). */
export abstract class LedgerAccounts extends LedgerBase {
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
    return await this.setFrozen(accountId, acct, true, body, now, who);
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
    return await this.setFrozen(accountId, acct, false, body, now, who);
  }

  /** Freezes the account or lifts its freeze (the caller checked it may), with both events of the change. */
  private async setFrozen(
    accountId: string,
    acct: StoredAccount,
    frozen: boolean,
    body: LedgerAccountActionBody,
    now: number,
    who: Actor,
  ): Promise<LedgerAccount> {
    const previous = {
      status: acct.status,
      frozen_at: acct.frozen_at,
      frozen_reason: acct.frozen_reason,
      frozen_by: acct.frozen_by,
    };
    acct.status = frozen ? 'frozen' : 'active';
    acct.frozen_at = frozen ? isoTime(now) : null;
    acct.frozen_reason = frozen ? (body.reason ?? null) : null;
    acct.frozen_by = frozen ? actorOf(who) : null;
    await this.accounts.update(accountId, acct);
    const type = frozen ? 'frozen' : 'unfrozen';
    await this.recordEvent(accountId, acct.id, type, body.reason ?? null, who, now);
    return await this.recorded(accountId, `ledger_account.${type}`, toApiAccount(acct), now, previous);
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
}

const actorOf = (who: Actor): string => who.actor ?? who.apiKeyId ?? 'unknown';

function toApiAccount(a: StoredAccount): LedgerAccount {
  const { system_key: _k, ...rest } = a;
  return rest;
}
