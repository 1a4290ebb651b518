// The payments area's services: created once per server, reachable from handlers as ctx.services.
import type { CoreServices } from '../core.js';
import type { DueWork } from '../due.js';
import type { Charger } from '../charges.js';
import type { RoutingRule } from '../../../contract/payments.js';
import { ProcessorRegistry } from './processors.js';
import { DEFAULT_ROUTING, parseRouting } from './routing.js';
import { Cards } from './cards.js';
import { BankAccounts } from './bankaccounts.js';
import { Payments } from './payments.js';

export interface PaymentsArea {
  /** Off-session charges for billing: real payments, routed as a confirm is. */
  charger: Charger;
  payments: Payments;
  processors: ProcessorRegistry;
  routing: RoutingRule[];
  cards: Cards;
  bankAccounts: BankAccounts;
}

/** The payments area, its processors' marks read (ProcessorRegistry.load): ready for the first request. */
export async function createPaymentsArea(core: CoreServices): Promise<{ area: PaymentsArea; due: DueWork[] }> {
  const config = core.config.payments ?? {};
  const routing = config.routing ? parseRouting(config.routing) : DEFAULT_ROUTING;
  const stored = core.ports.payments;
  const processors = new ProcessorRegistry(config.pspDown ?? [], { store: core.store, stored, changes: core.changes });
  await processors.load();
  for (const rule of routing)
    for (const id of rule.candidates)
      if (!processors.has(id)) throw new Error(`Routing rule names unknown processor "${id}".`);
  const cards = new Cards(stored, core.events);
  const bankAccounts = new BankAccounts(stored, core.sealer, core.events);
  const payments = new Payments({
    stored,
    hooks: core.hooks,
    events: core.events,
    sessions: core.sessions,
    cards,
    bankAccounts,
    processors,
    routing,
    publicUrl: core.config.publicUrl,
  });
  return { area: { charger: payments, payments, processors, routing, cards, bankAccounts }, due: [payments.ach] };
}
