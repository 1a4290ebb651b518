// The payments area's services: created once per server, reachable from handlers as ctx.services.
import type { CoreServices } from '../core.js';
import type { DueWork } from '../due.js';
import type { Charger } from '../charges.js';
import type { RoutingRule } from '../../../contract/payments.js';
import { ProcessorRegistry } from './processors.js';
import { DEFAULT_ROUTING, parseRouting } from './routing.js';
import { Cards } from './cards.js';
import { BankAccounts } from './bankaccounts.js';
import { PaymentsEngine } from './engine.js';

export interface PaymentsArea {
  /** Off-session charges for billing: real payments through the routed engine. */
  charger: Charger;
  payments: PaymentsEngine;
  processors: ProcessorRegistry;
  routing: RoutingRule[];
  cards: Cards;
  bankAccounts: BankAccounts;
}

export function createPaymentsArea(core: CoreServices): { area: PaymentsArea; due: DueWork[] } {
  const config = core.config.payments ?? {};
  const routing = config.routing ? parseRouting(config.routing) : DEFAULT_ROUTING;
  const processors = new ProcessorRegistry(config.pspDown ?? []);
  for (const rule of routing)
    for (const id of rule.candidates)
      if (!processors.has(id)) throw new Error(`Routing rule names unknown processor "${id}".`);
  const stored = core.ports.payments;
  const cards = new Cards(stored, core.events);
  const bankAccounts = new BankAccounts(stored, core.sealer, core.events);
  const payments = new PaymentsEngine({
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
