// Migrations of the billing area. Versions: payments 100–199, billing 200–299, ledger 300–399, identity/KYC 400–499.
import type { Migration } from '../migrations.js';
import { documentTable } from '../db.js';

export const billingMigrations: Migration[] = [
  {
    version: 200,
    name: 'billing: customers, products, prices, coupons',
    sql: [
      documentTable('customers', { email: 'TEXT' }, [['email']]),
      documentTable('products', { active: 'INTEGER NOT NULL' }, [['active']]),
      documentTable('prices', { product: 'TEXT NOT NULL', type: 'TEXT NOT NULL', active: 'INTEGER NOT NULL', currency: 'TEXT NOT NULL' }, [
        ['product'],
        ['type'],
        ['active'],
        ['currency'],
      ]),
      // Coupons may take a caller-chosen id, unique per account (not globally).
      `
CREATE TABLE coupons (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  data TEXT NOT NULL,
  UNIQUE (account_id, id)
);
CREATE INDEX coupons_account_seq ON coupons (account_id, seq);`,
      `
CREATE TABLE billing_counters (
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  value INTEGER NOT NULL,
  PRIMARY KEY (account_id, name)
) WITHOUT ROWID;`,
    ].join('\n'),
  },
  {
    version: 201,
    name: 'billing: subscriptions, items, usage records, invoices',
    sql: [
      documentTable('subscriptions', { customer: 'TEXT NOT NULL', status: 'TEXT NOT NULL', due_ms: 'INTEGER' }, [['customer'], ['status']]),
      'CREATE INDEX subscriptions_due ON subscriptions (status, due_ms);',
      documentTable('subscription_items', { subscription: 'TEXT NOT NULL' }, [['subscription']]),
      documentTable('usage_records', { subscription_item: 'TEXT NOT NULL', ts: 'INTEGER NOT NULL' }, [['subscription_item', 'ts']]),
      documentTable('invoices', { customer: 'TEXT NOT NULL', subscription: 'TEXT', status: 'TEXT NOT NULL', action_kind: 'TEXT', action_ms: 'INTEGER' }, [
        ['customer'],
        ['subscription'],
        ['status'],
      ]),
      'CREATE INDEX invoices_due ON invoices (action_kind, action_ms);',
    ].join('\n'),
  },
  {
    version: 202,
    name: 'billing: checkout and portal sessions',
    sql: [documentTable('checkout_sessions', { status: 'TEXT NOT NULL' }, [['status']]), documentTable('portal_sessions', { customer: 'TEXT NOT NULL' }, [['customer']])].join('\n'),
  },
];
