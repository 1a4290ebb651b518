// The identity area's services: created once per server, reachable from handlers as ctx.services.
import type { CoreServices } from '../../services.js';
import type { DueWork } from '../due.js';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface IdentityArea {}

export function createIdentityArea(_core: CoreServices): { area: IdentityArea; due: DueWork[] } {
  return { area: {}, due: [] };
}
