// The payments area's services: created once per server, reachable from handlers as ctx.services.
import type { CoreServices } from '../../services.js';
import type { DueWork } from '../due.js';
import type { Charger, ChargeResult } from '../charges.js';
import { testCardByToken } from '../testcards.js';

export interface PaymentsArea {
  /** Off-session charges for billing. */
  charger: Charger;
}

/**
 * Until the routed payments engine exists: charges follow the test-card table directly and create no
 * payment object.
 */
const tableCharger: Charger = {
  charge(_accountId, req): ChargeResult {
    const card = testCardByToken(req.payment_method);
    if (!card) return { status: 'failed', payment_id: null, code: 'card_declined', decline_code: 'generic_decline', message: 'Unknown payment method.' };
    const o = card.outcome;
    if (o.kind === 'success' || o.kind === 'processor_unavailable') return { status: 'succeeded', payment_id: null };
    if (o.kind === 'decline') return { status: 'failed', payment_id: null, code: 'card_declined', decline_code: o.code, message: `The card was declined (${o.code}).` };
    if (o.kind === 'threeds') return { status: 'failed', payment_id: null, code: 'authentication_required', message: 'This card requires 3D Secure authentication.' };
    return { status: 'failed', payment_id: null, code: 'processing_error', message: 'An error occurred while processing the card.' };
  },
};

export function createPaymentsArea(_core: CoreServices): { area: PaymentsArea; due: DueWork[] } {
  return { area: { charger: tableCharger }, due: [] };
}
