// The ledger area's services: created once per server, reachable from handlers as ctx.services.
import type { CoreServices } from '../../services.js';
import type { DueWork } from '../due.js';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface LedgerArea {}

export function createLedgerArea(_core: CoreServices): { area: LedgerArea; due: DueWork[] } {
  return { area: {}, due: [] };
}
