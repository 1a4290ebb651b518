// Holds: money set aside on an account (counted in its pending balance, never beyond what is available), then
// captured into another account by a journal entry, or released.
import type { CaptureHoldBody, CreateHoldBody, Hold, ListHoldsQuery } from '../../../contract/ledger.js';
import type { List } from '../../../contract/common.js';
import { DAY_MS } from '../../../contract/time.js';
import { newId } from '../../ids.js';
import { isoTime } from '../../clock.js';
import { errors } from '../../errors.js';
import { opposite, toApiHold } from './base.js';
import { LedgerJournals } from './journals.js';
import type { StoredAccount, StoredHold } from './port.js';

/** Default hold lifetime when `expires_at` is not given. */
export const HOLD_DEFAULT_TTL_MS = 7 * DAY_MS;

/** Holds, over the journal entries that capture them. */
export abstract class LedgerHolds extends LedgerJournals {
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
    return await this.endHold(accountId, hold, now, 'hold.released', now, { status: 'active', released_at: null });
  }

  /** Writes a hold that ended without a capture (released or expired, its fields set) and records `type` at `at`. */
  protected async endHold(
    accountId: string,
    hold: StoredHold,
    now: number,
    type: 'hold.released' | 'hold.expired',
    at: number,
    previous: object,
  ): Promise<Hold> {
    // The held account before the hold, as a capture writes them: two requests on one hold never wait for each
    // other's second row (a deadlock, on an engine with row locks).
    await this.adjustPending(
      accountId,
      await this.accounts.require(accountId, hold.ledger_account_id, 'ledger_account'),
      -hold.amount,
      now,
    );
    await this.holds.update(accountId, hold);
    return await this.recorded(accountId, type, toApiHold(hold), at, previous);
  }

  /** Moves a hold's amount into (or out of) the account's pending balance: with posting, the only balance write. */
  protected async adjustPending(accountId: string, a: StoredAccount, delta: number, now: number): Promise<void> {
    a.pending_balance += delta;
    a.available_balance = a.balance - a.pending_balance;
    a.balance_updated_at = isoTime(now);
    await this.accounts.update(accountId, a);
  }
}
