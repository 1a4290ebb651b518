// Double-entry ledger: accounts, journal entries, holds, account events (docs/api.md "Ledger",
// which also records the decisions taken beyond the contract).
import { Type, type Static } from '@sinclair/typebox';
import { Currency, DateTime, IdParam, ListOf, ListQuery, Metadata, Nullable } from './common.js';
import { MAX_AMOUNT } from './numbers.js';

export const AccountType = Type.Union([
  Type.Literal('asset'),
  Type.Literal('liability'),
  Type.Literal('equity'),
  Type.Literal('revenue'),
  Type.Literal('expense'),
]);
export type AccountType = Static<typeof AccountType>;

export const Direction = Type.Union([Type.Literal('debit'), Type.Literal('credit')]);
export type Direction = Static<typeof Direction>;

export const LedgerAccountStatus = Type.Union([Type.Literal('active'), Type.Literal('frozen'), Type.Literal('closed')]);
export type LedgerAccountStatus = Static<typeof LedgerAccountStatus>;

export const HoldStatus = Type.Union([
  Type.Literal('active'),
  Type.Literal('captured'),
  Type.Literal('released'),
  Type.Literal('expired'),
]);
export type HoldStatus = Static<typeof HoldStatus>;

const Amount = Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'minor units' });

/** One line of a posted journal entry as seen from its account (recent_entries, GET …/entries). */
export const LedgerEntry = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('ledger_entry'),
    ledger_account_id: Type.String(),
    journal_entry_id: Type.String(),
    entry_type: Direction,
    amount: Type.Integer(),
    currency: Type.String(),
    description: Nullable(Type.String()),
    running_balance: Type.Integer({ description: 'the account balance (normal direction) right after this line' }),
    created_at: DateTime,
  },
  { $id: 'LedgerEntry' },
);
export type LedgerEntry = Static<typeof LedgerEntry>;

export const Hold = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('hold'),
    ledger_account_id: Type.String(),
    amount: Type.Integer(),
    currency: Type.String(),
    description: Nullable(Type.String()),
    status: HoldStatus,
    expires_at: Nullable(DateTime),
    created_at: DateTime,
    captured_at: Nullable(DateTime),
    released_at: Nullable(DateTime),
    expired_at: Nullable(DateTime),
    captured_amount: Nullable(Type.Integer()),
    destination_account_id: Nullable(Type.String()),
    journal_entry_id: Nullable(Type.String()),
    metadata: Metadata,
  },
  { $id: 'Hold' },
);
export type Hold = Static<typeof Hold>;

export const LedgerAccount = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('ledger_account'),
    account_number: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    account_type: AccountType,
    normal_balance: Direction,
    status: LedgerAccountStatus,
    currency: Type.String(),
    balance: Type.Integer(),
    available_balance: Type.Integer(),
    pending_balance: Type.Integer(),
    balance_updated_at: DateTime,
    customer_id: Nullable(Type.String()),
    external_reference: Nullable(Type.String()),
    is_system_account: Type.Boolean(),
    frozen_at: Nullable(DateTime),
    frozen_reason: Nullable(Type.String()),
    frozen_by: Nullable(Type.String()),
    closed_at: Nullable(DateTime),
    created_at: DateTime,
    metadata: Metadata,
    livemode: Type.Boolean(),
    recent_entries: Type.Optional(Type.Array(LedgerEntry)),
    active_holds: Type.Optional(Type.Array(Hold)),
  },
  { $id: 'LedgerAccount' },
);
export type LedgerAccount = Static<typeof LedgerAccount>;

export const JournalLine = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  direction: Direction,
  amount: Type.Integer(),
  description: Nullable(Type.String()),
});
export type JournalLine = Static<typeof JournalLine>;

export const JournalEntry = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('journal_entry'),
    description: Nullable(Type.String()),
    currency: Type.String(),
    amount: Type.Integer({ description: 'total of the debits (= total of the credits)' }),
    entries: Type.Array(JournalLine),
    reverses: Nullable(Type.String()),
    reversed_by: Nullable(Type.String()),
    hold_id: Nullable(Type.String()),
    payment_id: Nullable(Type.String()),
    metadata: Metadata,
    created_at: DateTime,
    livemode: Type.Boolean(),
  },
  { $id: 'JournalEntry' },
);
export type JournalEntry = Static<typeof JournalEntry>;

export const LedgerAccountEventType = Type.Union([
  Type.Literal('created'),
  Type.Literal('frozen'),
  Type.Literal('unfrozen'),
  Type.Literal('closed'),
]);

export const LedgerAccountEvent = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('ledger_account_event'),
    ledger_account_id: Type.String(),
    type: LedgerAccountEventType,
    reason: Nullable(Type.String()),
    actor: Type.String({ description: 'who: the actor the caller named, else the API key id' }),
    api_key_id: Nullable(Type.String()),
    created_at: DateTime,
  },
  { $id: 'LedgerAccountEvent' },
);
export type LedgerAccountEvent = Static<typeof LedgerAccountEvent>;

// ------------------------------------------------------------------------------------------- requests

export const CreateLedgerAccountBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    account_type: AccountType,
    currency: Currency,
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    external_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    account_number: Type.Optional(Type.String({ minLength: 1, maxLength: 34, pattern: '^[A-Za-z0-9-]+$' })),
    is_system_account: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateLedgerAccountBody = Static<typeof CreateLedgerAccountBody>;

/** freeze / unfreeze / close: why, and who (defaults to the API key id). */
export const LedgerAccountActionBody = Type.Object(
  {
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
export type LedgerAccountActionBody = Static<typeof LedgerAccountActionBody>;

export const ListLedgerAccountsQuery = Type.Object(
  {
    ...ListQuery,
    status: Type.Optional(LedgerAccountStatus),
    customer: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    currency: Type.Optional(Currency),
  },
  { additionalProperties: false },
);
export type ListLedgerAccountsQuery = Static<typeof ListLedgerAccountsQuery>;

export const JournalLineInput = Type.Object(
  {
    account_id: Type.String({ minLength: 1, maxLength: 255 }),
    direction: Direction,
    amount: Amount,
    description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type JournalLineInput = Static<typeof JournalLineInput>;

export const CreateJournalEntryBody = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    entries: Type.Array(JournalLineInput, { minItems: 2, maxItems: 100 }),
    currency: Type.Optional(Currency),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateJournalEntryBody = Static<typeof CreateJournalEntryBody>;

export const ReverseJournalEntryBody = Type.Object(
  { description: Type.Optional(Type.String({ maxLength: 1000 })), metadata: Type.Optional(Metadata) },
  { additionalProperties: false },
);
export type ReverseJournalEntryBody = Static<typeof ReverseJournalEntryBody>;

export const ListJournalEntriesQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export type ListJournalEntriesQuery = Static<typeof ListJournalEntriesQuery>;

export const ListEntriesQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export type ListEntriesQuery = Static<typeof ListEntriesQuery>;

export const CreateHoldBody = Type.Object(
  {
    amount: Amount,
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    expires_at: Type.Optional(DateTime),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateHoldBody = Static<typeof CreateHoldBody>;

export const CaptureHoldBody = Type.Object(
  {
    destination_account_id: Type.String({ minLength: 1, maxLength: 255 }),
    amount: Type.Optional(Amount),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type CaptureHoldBody = Static<typeof CaptureHoldBody>;

export const ListHoldsQuery = Type.Object(
  { ...ListQuery, status: Type.Optional(HoldStatus) },
  { additionalProperties: false },
);
export type ListHoldsQuery = Static<typeof ListHoldsQuery>;

export const LedgerAccountIdParams = Type.Object({ account_id: IdParam }, { additionalProperties: false });
export const JournalEntryIdParams = Type.Object({ journal_entry_id: IdParam }, { additionalProperties: false });
export const HoldIdParams = Type.Object({ hold_id: IdParam }, { additionalProperties: false });

export const LedgerAccountList = ListOf(LedgerAccount);
export const LedgerEntryList = ListOf(LedgerEntry);
export const JournalEntryList = ListOf(JournalEntry);
export const HoldList = ListOf(Hold);
export const LedgerAccountEventList = ListOf(LedgerAccountEvent);
