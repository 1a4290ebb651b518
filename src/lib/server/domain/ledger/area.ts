// The ledger area's services: created once per server, reachable from handlers as ctx.services.
import type { CoreServices } from '../core.js';
import type { DueWork } from '../due.js';
import { Ledger } from './ledger.js';

export interface LedgerArea {
  ledger: Ledger;
}

export function createLedgerArea(core: CoreServices): { area: LedgerArea; due: DueWork[] } {
  const ledger = new Ledger(core.ports.ledger, core.events);
  // Captured and refunded payments post themselves (in the emitter's transaction) into the per-currency
  // system accounts: processor clearing (asset) and merchant balance (liability).
  core.hooks.on('paymentCaptured', async (accountId, ev) => {
    await ledger.postPayment(accountId, 'captured', ev);
  });
  core.hooks.on('paymentRefunded', async (accountId, ev) => {
    await ledger.postPayment(accountId, 'refunded', ev);
  });
  return { area: { ledger }, due: [ledger] };
}
