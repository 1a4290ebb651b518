// The billing area's services: created once per server, reachable from handlers as ctx.services.
import type { CoreServices } from '../../services.js';
import type { DueWork } from '../due.js';
import type { PaymentsArea } from '../payments/area.js';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface BillingArea {}

export function createBillingArea(_core: CoreServices & PaymentsArea): { area: BillingArea; due: DueWork[] } {
  return { area: {}, due: [] };
}
