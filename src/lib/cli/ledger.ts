// What the ledger account commands that change an account's status (close, freeze, unfreeze) share.
import { Args, Flags } from '@oclif/core';
import { idempotencyFlag, yesFlag } from './base.js';

/** The account the command acts on. */
export const ledgerAccountArgs = { id: Args.string({ description: 'Ledger account id (la_…)', required: true }) };

/** --reason and --actor for the audit trail, with --idempotency-key and --yes. */
export const statusChangeFlags = {
  reason: Flags.string({ description: 'Why (kept in the audit trail)' }),
  actor: Flags.string({ description: 'Who, for the audit trail (default cli:<os user>)' }),
  'idempotency-key': idempotencyFlag,
  yes: yesFlag,
};
