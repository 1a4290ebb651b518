// What the domain asks of its storage: one port per area, each declared beside the rules that use it, in the
// domain's own words (a token stored, a page of tokens read). An engine's adapter implements every port
// (store/sqlite/ports.ts); domain/services.ts hands each area its own.
import type { VaultStore } from './identity/vault.js';

export interface StorePorts {
  vault: VaultStore;
}
