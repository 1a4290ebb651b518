import type { Hold, JournalEntry, LedgerAccount, LedgerAccountEvent, LedgerEntry } from '../../contract/ledger.js';
import { formatMoney, formatTime } from '../format.js';
import { detailText, tableText, color, type Column, type Field } from '../render.js';

export const accountFields: Field<LedgerAccount>[] = [
  { label: 'id', value: (a) => a.id },
  { label: 'name', value: (a) => a.name },
  { label: 'status', value: (a) => a.status, status: true },
  {
    label: 'type',
    value: (a) => `${a.account_type} (normal ${a.normal_balance})${a.is_system_account ? ', system account' : ''}`,
  },
  { label: 'number', value: (a) => a.account_number },
  { label: 'balance', value: (a) => formatMoney(a.balance, a.currency) },
  { label: 'pending', value: (a) => formatMoney(a.pending_balance, a.currency) },
  { label: 'available', value: (a) => formatMoney(a.available_balance, a.currency) },
  { label: 'balance as of', value: (a) => formatTime(a.balance_updated_at) },
  {
    label: 'frozen',
    value: (a) =>
      a.status === 'frozen'
        ? `by ${a.frozen_by ?? 'unknown'} at ${formatTime(a.frozen_at)}${a.frozen_reason ? ` — ${a.frozen_reason}` : ' (no reason given)'}`
        : '',
  },
  { label: 'closed', value: (a) => formatTime(a.closed_at) },
  { label: 'customer', value: (a) => a.customer_id },
  { label: 'reference', value: (a) => a.external_reference },
  { label: 'description', value: (a) => a.description },
  {
    label: 'metadata',
    value: (a) =>
      Object.entries(a.metadata ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(', '),
  },
  { label: 'created', value: (a) => formatTime(a.created_at) },
];

export const accountColumns: Column<LedgerAccount>[] = [
  { header: 'ID', value: (a) => a.id },
  { header: 'NAME', value: (a) => a.name, shrink: true },
  { header: 'TYPE', value: (a) => a.account_type, optional: true },
  { header: 'STATUS', value: (a) => a.status, status: true },
  { header: 'BALANCE', value: (a) => formatMoney(a.balance, a.currency) },
  { header: 'AVAILABLE', value: (a) => formatMoney(a.available_balance, a.currency) },
  { header: 'CUSTOMER', value: (a) => a.customer_id, optional: true },
];

export const entryColumns: Column<LedgerEntry>[] = [
  { header: 'ENTRY', value: (e) => e.id, optional: true },
  { header: 'JOURNAL ENTRY', value: (e) => e.journal_entry_id, optional: true },
  { header: 'TYPE', value: (e) => e.entry_type },
  { header: 'AMOUNT', value: (e) => formatMoney(e.amount, e.currency) },
  { header: 'RUNNING BALANCE', value: (e) => formatMoney(e.running_balance, e.currency) },
  { header: 'DESCRIPTION', value: (e) => e.description, shrink: true },
  { header: 'CREATED', value: (e) => formatTime(e.created_at) },
];

export const holdFields: Field<Hold>[] = [
  { label: 'id', value: (h) => h.id },
  { label: 'status', value: (h) => h.status, status: true },
  { label: 'account', value: (h) => h.ledger_account_id },
  { label: 'amount', value: (h) => formatMoney(h.amount, h.currency) },
  { label: 'description', value: (h) => h.description },
  { label: 'expires', value: (h) => formatTime(h.expires_at) },
  {
    label: 'captured',
    value: (h) =>
      h.captured_at
        ? `${formatMoney(h.captured_amount, h.currency)} into ${h.destination_account_id} at ${formatTime(h.captured_at)} (${h.journal_entry_id})`
        : '',
  },
  { label: 'released', value: (h) => formatTime(h.released_at) },
  { label: 'expired', value: (h) => formatTime(h.expired_at) },
  { label: 'created', value: (h) => formatTime(h.created_at) },
];

export const holdColumns: Column<Hold>[] = [
  { header: 'HOLD', value: (h) => h.id },
  { header: 'STATUS', value: (h) => h.status, status: true },
  { header: 'AMOUNT', value: (h) => formatMoney(h.amount, h.currency) },
  { header: 'DESCRIPTION', value: (h) => h.description, shrink: true },
  { header: 'EXPIRES', value: (h) => formatTime(h.expires_at), optional: true },
];

export const journalFields: Field<JournalEntry>[] = [
  { label: 'id', value: (j) => j.id },
  { label: 'description', value: (j) => j.description },
  { label: 'amount', value: (j) => formatMoney(j.amount, j.currency) },
  {
    label: 'lines',
    value: (j) => j.entries.map((l) => `${l.direction.padEnd(6)} ${l.account_id} ${formatMoney(l.amount, j.currency)}`),
  },
  { label: 'reverses', value: (j) => j.reverses },
  { label: 'reversed by', value: (j) => j.reversed_by },
  { label: 'hold', value: (j) => j.hold_id },
  { label: 'payment', value: (j) => j.payment_id },
  { label: 'created', value: (j) => formatTime(j.created_at) },
];

export const eventColumns: Column<LedgerAccountEvent>[] = [
  { header: 'WHEN', value: (e) => formatTime(e.created_at) },
  { header: 'EVENT', value: (e) => e.type },
  {
    header: 'WHO',
    value: (e) => (e.api_key_id && e.api_key_id !== e.actor ? `${e.actor} (key ${e.api_key_id})` : e.actor),
    shrink: true,
  },
  { header: 'WHY', value: (e) => e.reason, shrink: true },
];

/** The support-staff view of one account: details (incl. who froze it, why, when), holds, recent entries. */
export async function accountSummary(a: LedgerAccount, title = 'Ledger account'): Promise<string> {
  const c = color();
  const parts = [detailText(a, title, accountFields)];
  const holds = a.active_holds ?? [];
  parts.push(
    '',
    c.bold(`Active holds (${holds.length})`),
    holds.length ? await tableText(holds, holdColumns) : '  none',
  );
  const recent = a.recent_entries ?? [];
  parts.push(
    '',
    c.bold(`Recent entries (${recent.length}, newest first)`),
    recent.length ? await tableText(recent, entryColumns) : '  none',
  );
  return parts.join('\n');
}
