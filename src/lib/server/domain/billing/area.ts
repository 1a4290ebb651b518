// The billing area's services: created once per server, reachable from handlers as ctx.services.billing.
import type { CoreServices } from '../core.js';
import type { DueWork } from '../due.js';
import type { PaymentsArea } from '../payments/area.js';
import type { BillingContext } from './store.js';
import { Customers } from './customers.js';
import { Products } from './products.js';
import { Prices } from './prices.js';
import { Coupons } from './coupons.js';
import { Invoices } from './invoices.js';
import { Subscriptions } from './subscriptions.js';
import { UsageRecords } from './usage.js';
import { Checkouts } from './checkout.js';
import { Portals } from './portal.js';
import { billingDueWork } from './due-work.js';
import { Hosted } from './hosted.js';

export interface Billing {
  customers: Customers;
  products: Products;
  prices: Prices;
  coupons: Coupons;
  subscriptions: Subscriptions;
  usage: UsageRecords;
  invoices: Invoices;
  checkouts: Checkouts;
  portals: Portals;
  hosted: Hosted;
}

export interface BillingArea {
  billing: Billing;
}

export function createBillingArea(core: CoreServices & PaymentsArea): { area: BillingArea; due: DueWork[] } {
  const ctx: BillingContext = { stored: core.ports.billing, events: core.events, publicUrl: core.config.publicUrl };
  const customers = new Customers(ctx);
  const products = new Products(ctx);
  const prices = new Prices(ctx, products);
  const coupons = new Coupons(ctx);
  // Charges go through whatever implements Charger at call time (the payments area may replace it).
  const invoices = new Invoices(ctx, { charge: (a, r, n) => core.charger.charge(a, r, n) }, coupons, core.hooks);
  const subscriptions = new Subscriptions(ctx, invoices, coupons);
  const usage = new UsageRecords(ctx);
  const checkouts = new Checkouts(ctx, core.sessions, customers, subscriptions, core.hooks);
  const portals = new Portals(ctx);
  const hosted = new Hosted(ctx, core.clock, invoices, subscriptions, checkouts);
  return {
    area: {
      billing: { customers, products, prices, coupons, subscriptions, usage, invoices, checkouts, portals, hosted },
    },
    due: [...billingDueWork(subscriptions, invoices), checkouts.expiry],
  };
}
