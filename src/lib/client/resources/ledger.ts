import type { List } from '../../contract/common.js';
import type {
  CaptureHoldBody,
  CreateHoldBody,
  CreateJournalEntryBody,
  CreateLedgerAccountBody,
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
} from '../../contract/ledger.js';
import { asQuery, enc, paginate, type CallOptions, type Requester } from './base.js';

export class LedgerAccountsResource {
  constructor(private readonly c: Requester) {}

  create(params: CreateLedgerAccountBody, options?: CallOptions): Promise<LedgerAccount> {
    return this.c.request('POST', '/ledger-accounts', { body: params, ...options });
  }

  /** With recent_entries and active_holds. */
  retrieve(id: string, options?: CallOptions): Promise<LedgerAccount> {
    return this.c.request('GET', `/ledger-accounts/${enc(id)}`, options);
  }

  list(params: ListLedgerAccountsQuery = {}, options?: CallOptions): Promise<List<LedgerAccount>> {
    return this.c.request('GET', '/ledger-accounts', { query: asQuery(params), ...options });
  }

  listAll(params: ListLedgerAccountsQuery = {}): AsyncGenerator<LedgerAccount> {
    return paginate((p) => this.list(p), params);
  }

  freeze(id: string, params: LedgerAccountActionBody = {}, options?: CallOptions): Promise<LedgerAccount> {
    return this.c.request('POST', `/ledger-accounts/${enc(id)}/freeze`, { body: params, ...options });
  }

  /** The operation has no body (docs/api.md "Ledger"); `params` (reason, actor for the audit trail) only when given. */
  unfreeze(id: string, params?: LedgerAccountActionBody, options?: CallOptions): Promise<LedgerAccount> {
    return this.c.request('POST', `/ledger-accounts/${enc(id)}/unfreeze`, { body: params, ...options });
  }

  close(id: string, params: LedgerAccountActionBody = {}, options?: CallOptions): Promise<LedgerAccount> {
    return this.c.request('POST', `/ledger-accounts/${enc(id)}/close`, { body: params, ...options });
  }

  /** The audit trail: created, frozen, unfrozen, closed. */
  events(id: string, params: ListEntriesQuery = {}, options?: CallOptions): Promise<List<LedgerAccountEvent>> {
    return this.c.request('GET', `/ledger-accounts/${enc(id)}/events`, { query: asQuery(params), ...options });
  }

  entries(id: string, params: ListEntriesQuery = {}, options?: CallOptions): Promise<List<LedgerEntry>> {
    return this.c.request('GET', `/ledger-accounts/${enc(id)}/entries`, { query: asQuery(params), ...options });
  }

  allEntries(id: string, params: ListEntriesQuery = {}): AsyncGenerator<LedgerEntry> {
    return paginate((p) => this.entries(id, p), params);
  }

  createHold(id: string, params: CreateHoldBody, options?: CallOptions): Promise<Hold> {
    return this.c.request('POST', `/ledger-accounts/${enc(id)}/holds`, { body: params, ...options });
  }

  holds(id: string, params: ListHoldsQuery = {}, options?: CallOptions): Promise<List<Hold>> {
    return this.c.request('GET', `/ledger-accounts/${enc(id)}/holds`, { query: asQuery(params), ...options });
  }
}

export class JournalEntriesResource {
  constructor(private readonly c: Requester) {}

  create(params: CreateJournalEntryBody, options?: CallOptions): Promise<JournalEntry> {
    return this.c.request('POST', '/journal-entries', { body: params, ...options });
  }

  retrieve(id: string, options?: CallOptions): Promise<JournalEntry> {
    return this.c.request('GET', `/journal-entries/${enc(id)}`, options);
  }

  list(params: ListJournalEntriesQuery = {}, options?: CallOptions): Promise<List<JournalEntry>> {
    return this.c.request('GET', '/journal-entries', { query: asQuery(params), ...options });
  }

  reverse(id: string, params: ReverseJournalEntryBody = {}, options?: CallOptions): Promise<JournalEntry> {
    return this.c.request('POST', `/journal-entries/${enc(id)}/reverse`, { body: params, ...options });
  }
}

export class HoldsResource {
  constructor(private readonly c: Requester) {}

  retrieve(id: string, options?: CallOptions): Promise<Hold> {
    return this.c.request('GET', `/holds/${enc(id)}`, options);
  }

  capture(id: string, params: CaptureHoldBody, options?: CallOptions): Promise<Hold> {
    return this.c.request('POST', `/holds/${enc(id)}/capture`, { body: params, ...options });
  }

  release(id: string, options?: CallOptions): Promise<Hold> {
    return this.c.request('POST', `/holds/${enc(id)}/release`, { body: {}, ...options });
  }
}
