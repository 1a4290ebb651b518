// The identity area's services: created once per server, reachable from handlers as ctx.services.
import type { CoreServices } from '../core.js';
import type { DueWork } from '../due.js';
import { Vault } from './vault.js';
import { Kyc } from './kyc.js';

export interface IdentityArea {
  vault: Vault;
  kyc: Kyc;
}

export function createIdentityArea(core: CoreServices): { area: IdentityArea; due: DueWork[] } {
  const vault = new Vault(core.ports.vault, core.sealer, core.events);
  const kyc = new Kyc(core.ports.kyc, vault, core.events);
  return { area: { vault, kyc }, due: [kyc] };
}
