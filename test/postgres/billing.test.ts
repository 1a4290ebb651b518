// The billing port on PostgreSQL answers as SQLite's: the same documents written through both engines' ports, then
// every query of the port asked the same questions (two accounts, creation order, limits, one account or all,
// unknown ids, empty answers) with the same answers. And what many processes at once must not break, with two stores
// (two pools, as two server processes) on one database: invoice numbers handed out once each, due work claimed by one
// process only (subscriptions, invoices, checkout sessions), and the rules that decide from rows they do not write (a
// usage record's "is there one at this timestamp", a paid invoice's "are the others settled", a customer or product
// deleted only without subscriptions or prices) decided by one transaction at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../dist/lib/server/adapters/sqlite/db.js';
import { sqliteBillingStore } from '../../dist/lib/server/adapters/sqlite/billing.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../dist/lib/server/adapters/postgres/db.js';
import { pgBillingStore } from '../../dist/lib/server/adapters/postgres/billing.js';
import type { BillingPort } from '../../dist/lib/server/domain/billing/store.js';
import { postgresServer } from '../helpers/postgres.js';

const pg = postgresServer();

/** A promise and the function that resolves it: a signal one part of a test gives another. */
function signal(): { promise: Promise<void>; give: () => void } {
  let give!: () => void;
  const promise = new Promise<void>((resolve) => (give = resolve));
  return { promise, give };
}

/** A fresh migrated database's URL. */
const migrated = (): Promise<string> => pg.migrated();

// Documents as the port stores them, with the fields the tables' columns and the queries read (and a marker).
// Partial documents: the port stores and answers what it is given.
type Any = any;
const A = 'acct_a';
const B = 'acct_b';

const customer = (id: string): Any => ({ id, object: 'customer', email: null, name: id });
const product = (id: string): Any => ({ id, object: 'product', active: true, name: id });
const price = (id: string, productId: string): Any => ({
  id,
  object: 'price',
  product: productId,
  type: 'recurring',
  active: true,
  currency: 'usd',
});
const sub = (id: string, cust: string, status: string, due: number | null): Any => ({
  id,
  object: 'subscription',
  customer: cust,
  status,
  due_ms: due,
});
const item = (id: string, subscription: string): Any => ({ id, object: 'subscription_item', subscription });
const usage = (id: string, itemId: string, ts: number, quantity = 1): Any => ({
  id,
  object: 'usage_record',
  subscription_item: itemId,
  subscription: 'sub',
  timestamp: ts,
  quantity,
});
const invoice = (
  id: string,
  cust: string,
  subscription: string | null,
  status: string,
  kind: 'retry' | 'due' | null = null,
  at: number | null = null,
): Any => ({ id, object: 'invoice', customer: cust, subscription, status, action_kind: kind, action_ms: at });
const checkout = (id: string, status: string, ps: string | null, expires: number): Any => ({
  id,
  object: 'checkout.session',
  status,
  mode: 'payment',
  payment_session: ps,
  expires_ms: expires,
});
const portal = (id: string, cust: string): Any => ({ id, object: 'billing_portal.session', customer: cust });

/** The same documents on either engine, inserted in the same order (creation order is not the order of due times). */
async function seed(b: BillingPort): Promise<void> {
  for (const [acct, id] of [
    [A, 'cus_1'],
    [A, 'cus_2'],
    [B, 'cus_3'],
  ] as const)
    await b.customers.insert(acct, customer(id));
  await b.products.insert(A, product('prod_1'));
  await b.products.insert(A, product('prod_2'));
  await b.prices.insert(A, price('price_3', 'prod_1'));
  await b.prices.insert(A, price('price_1', 'prod_1'));
  await b.prices.insert(B, price('price_b', 'prod_1'));
  await b.prices.insert(A, price('price_2', 'prod_1'));
  await b.coupons.insert(A, { id: 'SAVE', object: 'coupon' } as Any);
  await b.coupons.insert(B, { id: 'SAVE', object: 'coupon' } as Any);

  await b.subscriptions.insert(A, sub('sub_1', 'cus_1', 'active', 1000));
  await b.subscriptions.insert(A, sub('sub_2', 'cus_1', 'canceled', null));
  await b.subscriptions.insert(A, sub('sub_3', 'cus_1', 'trialing', 500));
  await b.subscriptions.insert(A, sub('sub_4', 'cus_2', 'past_due', 200));
  await b.subscriptions.insert(B, sub('sub_5', 'cus_1', 'active', 100));
  await b.subscriptions.insert(A, sub('sub_6', 'cus_1', 'active', 50));
  await b.subscriptions.insert(A, sub('sub_7', 'cus_1', 'active', null));

  await b.items.insert(A, item('si_2', 'sub_1'));
  await b.items.insert(A, item('si_1', 'sub_1'));
  await b.items.insert(A, item('si_3', 'sub_3'));
  await b.items.insert(B, item('si_4', 'sub_1'));

  await b.usage.insert(A, usage('ur_1', 'si_1', 30));
  await b.usage.insert(A, usage('ur_2', 'si_1', 10));
  await b.usage.insert(A, usage('ur_3', 'si_1', 20, 5));
  await b.usage.insert(A, usage('ur_4', 'si_1', 20, 7));
  await b.usage.insert(A, usage('ur_5', 'si_2', 15));
  await b.usage.insert(B, usage('ur_6', 'si_1', 10));

  await b.invoices.insert(A, invoice('in_1', 'cus_1', 'sub_1', 'draft'));
  await b.invoices.insert(A, invoice('in_2', 'cus_1', 'sub_1', 'open', 'retry', 100));
  await b.invoices.insert(A, invoice('in_3', 'cus_1', 'sub_1', 'past_due', 'due', 50));
  await b.invoices.insert(A, invoice('in_4', 'cus_1', 'sub_1', 'paid'));
  await b.invoices.insert(A, invoice('in_5', 'cus_2', 'sub_4', 'uncollectible', 'retry', 300));
  await b.invoices.insert(B, invoice('in_6', 'cus_1', 'sub_1', 'open', 'retry', 10));
  await b.invoices.insert(A, invoice('in_7', 'cus_1', null, 'open', 'retry', 20));
  await b.invoices.insert(A, invoice('in_8', 'cus_1', 'sub_1', 'uncollectible', 'due', 5));

  await b.checkouts.insert(A, checkout('cs_1', 'open', 'ps_1', 1000));
  await b.checkouts.insert(A, checkout('cs_2', 'open', 'ps_1', 500));
  await b.checkouts.insert(A, checkout('cs_3', 'complete', 'ps_1', 100));
  await b.checkouts.insert(A, checkout('cs_4', 'open', 'ps_2', 2000));
  await b.checkouts.insert(B, checkout('cs_5', 'open', 'ps_1', 10));
  await b.checkouts.insert(A, checkout('cs_6', 'open', null, 300));

  await b.portals.insert(A, portal('bps_1', 'cus_1'));
  await b.portals.insert(B, portal('bps_2', 'cus_3'));
}

/** An answer or the error thrown, as plain JSON. */
async function outcome(f: () => Promise<unknown>): Promise<unknown> {
  try {
    return JSON.parse(JSON.stringify({ ok: (await f()) ?? null }));
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Every query of the port, asked the same questions: the answers in order. */
async function ask(b: BillingPort): Promise<unknown[]> {
  const qs: (() => Promise<unknown>)[] = [
    () => b.nextCounter(A, 'invoice_number'),
    () => b.nextCounter(A, 'invoice_number'),
    () => b.nextCounter(B, 'invoice_number'),
    () => b.nextCounter(A, 'other'),
    () => b.nextCounter(A, 'invoice_number'),

    () => b.itemsOf(A, 'sub_1'),
    () => b.itemsOf(B, 'sub_1'),
    () => b.itemsOf(A, 'sub_none'),
    () => b.pricesOf(A, 'prod_1'),
    () => b.pricesOf(A, 'prod_2'),
    () => b.pricesOf(B, 'prod_1'),
    () => b.subscriptionsOf(A, 'cus_1'),
    () => b.subscriptionsOf(A, 'cus_3'),
    () => b.liveSubscriptionsOf(A, 'cus_1'),
    () => b.liveSubscriptionsOf(B, 'cus_1'),
    () => b.liveSubscriptionsOf(A, 'cus_none'),
    () => b.finalizedInvoicesOf(A, 'cus_1'),
    () => b.finalizedInvoicesOf(A, 'cus_2'),
    () => b.finalizedInvoicesOf(B, 'cus_2'),
    () => b.unsettledInvoicesOf(A, 'sub_1', 'in_2'),
    () => b.unsettledInvoicesOf(A, 'sub_1', 'in_none'),
    () => b.unsettledInvoicesOf(A, 'sub_4', 'in_5'),
    () => b.unsettledInvoicesOf(B, 'sub_none', 'in_1'),

    () => b.findCheckout('cs_5'),
    () => b.findCheckout('cs_3'),
    () => b.findCheckout('cs_none'),
    () => b.findInvoice('in_6'),
    () => b.findInvoice('in_none'),
    () => b.findPortal('bps_2'),
    () => b.findPortal('bps_none'),
    () => b.openCheckoutsOf(A, 'ps_1'),
    () => b.openCheckoutsOf(A, 'ps_2'),
    () => b.openCheckoutsOf(B, 'ps_1'),
    () => b.openCheckoutsOf(A, 'ps_none'),

    () => b.usageBefore(A, 'si_1', 20),
    () => b.usageBefore(A, 'si_1', 31),
    () => b.usageBefore(A, 'si_1', 10),
    () => b.usageDuring(A, 'si_1', 10, 30),
    () => b.usageDuring(A, 'si_1', 20, 20),
    () => b.usageDuring(B, 'si_1', 0, 100),
    () => b.usageAt(A, 'si_1', 20),
    () => b.usageAt(A, 'si_1', 30),
    () => b.usageAt(A, 'si_1', 25),
    () => b.usageAt(A, 'si_none', 20),

    () => b.nextCheckoutExpiry(A),
    () => b.nextCheckoutExpiry(B),
    () => b.nextCheckoutExpiry('acct_none'),
    () => b.nextInvoiceAction(A, 'retry'),
    () => b.nextInvoiceAction(A, 'due'),
    () => b.nextInvoiceAction(B, 'due'),
    () => b.nextSubscriptionDue(A, ['active', 'past_due']),
    () => b.nextSubscriptionDue(A, ['trialing']),
    () => b.nextSubscriptionDue(B, ['active']),
    () => b.nextSubscriptionDue(A, ['canceled']),
  ];
  for (const now of [0, 10, 300, 1000, 5000])
    for (const acct of [A, B, undefined])
      for (const limit of [-1, 0, 1, 2])
        qs.push(
          () => b.checkoutsExpiredBy(now, acct, limit),
          () => b.invoicesDue('retry', now, acct, limit),
          () => b.invoicesDue('due', now, acct, limit),
          () => b.subscriptionsDue(['active', 'past_due'], now, acct, limit),
          () => b.subscriptionsDue(['trialing'], now, acct, limit),
        );
  const out: unknown[] = [];
  for (const q of qs) out.push(await outcome(q));
  return out;
}

describe.skipIf(pg.missing !== '')(`billing on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
  let lite: SqliteDatabase;
  let url: string;
  const stores: PostgresDatabase[] = [];
  /** A store over the test's database (closed after the file). */
  const open = (u = url) => {
    const s = openPostgresDatabase(u, { max: 4 });
    stores.push(s);
    return s;
  };

  beforeAll(async () => {
    url = await migrated();
    lite = openSqliteDatabase(':memory:');
  }, 60_000);

  afterAll(async () => {
    lite?.close();
    await Promise.all(stores.map((s) => s.end()));
  });

  it('answers every query of the port as SQLite does', async () => {
    const store = open();
    const pgBilling = pgBillingStore(store);
    const liteBilling = sqliteBillingStore(lite);
    await lite.grouped(() => seed(liteBilling));
    await store.grouped(() => seed(pgBilling));
    const expected = await lite.grouped(() => ask(liteBilling));
    const got = await store.grouped(() => ask(pgBilling));
    expect(got).toEqual(expected);
    // The questions found something: a port answering nothing to everything would agree with nothing.
    expect(JSON.stringify(expected)).toContain('sub_6');
    expect(got[0]).toEqual({ ok: 1 });
  });

  it('hands out each invoice number once to many transactions of two processes at once', async () => {
    const u = await migrated();
    const [one, two] = [open(u), open(u)];
    const ports = [pgBillingStore(one), pgBillingStore(two)];
    const stores2 = [one, two];
    const n = 24;
    const numbers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        stores2[i % 2]!.grouped(async () => {
          const num = await ports[i % 2]!.nextCounter(A, 'invoice_number');
          await ports[i % 2]!.invoices.insert(A, invoice(`in_${i}`, 'cus_1', null, 'open'));
          return num;
        }),
      ),
    );
    expect([...numbers].sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(await one.grouped(() => ports[0]!.nextCounter(A, 'invoice_number'))).toBe(n + 1);
  });

  type Claim = (b: BillingPort, limit: number) => Promise<{ accountId: string; doc: { id: string } }[]>;
  const kinds: {
    name: string;
    prefix: string;
    insert: (b: BillingPort, i: number) => Promise<unknown>;
    claim: Claim;
    done: (b: BillingPort, id: string) => Promise<unknown>;
  }[] = [
    {
      name: 'subscriptions due',
      prefix: 'sub',
      insert: (b, i) => b.subscriptions.insert(A, sub(`sub_${i}`, 'cus_1', 'active', 100 + i)),
      claim: (b, limit) => b.subscriptionsDue(['active', 'past_due'], 1000, A, limit),
      done: async (b, id) => {
        const s = (await b.subscriptions.get(A, id))!;
        await b.subscriptions.update(A, { ...s, due_ms: 5000 });
      },
    },
    {
      name: 'invoices due',
      prefix: 'in',
      insert: (b, i) => b.invoices.insert(A, invoice(`in_${i}`, 'cus_1', null, 'open', 'retry', 100 + i)),
      claim: (b, limit) => b.invoicesDue('retry', 1000, undefined, limit),
      done: async (b, id) => {
        const inv = (await b.invoices.get(A, id))!;
        await b.invoices.update(A, { ...inv, action_kind: null, action_ms: null });
      },
    },
    {
      name: 'checkout sessions expired',
      prefix: 'cs',
      insert: (b, i) => b.checkouts.insert(A, checkout(`cs_${i}`, 'open', `ps_${i}`, 100 + i)),
      claim: (b, limit) => b.checkoutsExpiredBy(1000, A, limit),
      done: async (b, id) => {
        const c = (await b.checkouts.get(A, id))!;
        await b.checkouts.update(A, { ...c, status: 'expired' });
      },
    },
  ];

  for (const k of kinds) {
    it(`${k.name}: two processes claiming at once take different rows, and neither waits for the other`, async () => {
      const u = await migrated();
      const [one, two] = [open(u), open(u)];
      const [b1, b2] = [pgBillingStore(one), pgBillingStore(two)];
      await one.grouped(async () => {
        for (let i = 0; i < 5; i++) await k.insert(b1, i);
      });
      // Each process claims its batch of 2 while the other holds its own, then works on it (the scheduler's step:
      // a transaction run once, `alone`). A claim that waited for the other's rows would never see its signal.
      const claimed = [signal(), signal()];
      const worked: string[][] = [[], []];
      const step = (store: PostgresDatabase, b: BillingPort, me: 0 | 1) =>
        store.alone(async () => {
          if (me === 1) await claimed[0]!.promise;
          const rows = await k.claim(b, 2);
          claimed[me]!.give();
          await claimed[1 - me]!.promise;
          for (const r of rows) {
            await k.done(b, r.doc.id);
            worked[me]!.push(r.doc.id);
          }
        });
      await Promise.all([step(one, b1, 0), step(two, b2, 1)]);
      expect(worked[0]).toHaveLength(2);
      expect(worked[1]).toHaveLength(2);
      expect(worked[0]!.filter((id) => worked[1]!.includes(id))).toEqual([]);
      // What is left is the one neither took; once worked on, nothing is due.
      expect([...worked[0]!, ...worked[1]!].sort()).toEqual([0, 1, 2, 3].map((i) => `${k.prefix}_${i}`));
      const rest = await one.grouped(() => k.claim(b1, -1));
      expect(rest.map((r) => r.doc.id)).toEqual([`${k.prefix}_4`]);
    });

    it(`${k.name}: a row another process finished after this transaction began is not worked on again`, async () => {
      const u = await migrated();
      const [one, two] = [open(u), open(u)];
      const [b1, b2] = [pgBillingStore(one), pgBillingStore(two)];
      await one.grouped(() => k.insert(b1, 0));
      const began = signal();
      const finished = signal();
      const attempts: number[] = [];
      const late = two.grouped(async () => {
        // This transaction's snapshot is taken before the other process finishes the row…
        await b2.customers.get(A, 'cus_1');
        began.give();
        await finished.promise;
        // …so its claim sees the row still due: it is aborted (40001) and run again, and then finds nothing.
        const rows = await k.claim(b2, -1);
        attempts.push(rows.length);
        for (const r of rows) await k.done(b2, r.doc.id);
        return rows.length;
      });
      await began.promise;
      await one.alone(async () => {
        for (const r of await k.claim(b1, -1)) await k.done(b1, r.doc.id);
      });
      finished.give();
      expect(await late).toBe(0);
      expect(attempts).toEqual([0]);
    });
  }

  /**
   * Two processes run one rule at once: the second's transaction takes its snapshot (`begin`) before the first
   * commits, and runs the rule (`second`) once the first has run it (`first`) and before the first commits.
   */
  const rivals = (
    one: PostgresDatabase,
    two: PostgresDatabase,
    first: () => Promise<unknown>,
    begin: () => Promise<unknown>,
    second: () => Promise<unknown>,
  ) => {
    const firstRan = signal();
    const secondBegan = signal();
    return Promise.all([
      one.grouped(async () => {
        await first();
        firstRan.give();
        await secondBegan.promise;
      }),
      two.grouped(async () => {
        await begin();
        secondBegan.give();
        await firstRan.promise;
        await second();
      }),
    ]);
  };

  it('a usage record at one timestamp from two processes at once is one record', async () => {
    const u = await migrated();
    const [one, two] = [open(u), open(u)];
    const [b1, b2] = [pgBillingStore(one), pgBillingStore(two)];
    await one.grouped(() => b1.items.insert(A, item('si_1', 'sub_1')));
    // The domain's rule (usage.ts): the record at this timestamp is added to, or a new one inserted.
    const record = async (b: BillingPort, id: string) => {
      const existing = await b.usageAt(A, 'si_1', 20);
      if (existing) await b.usage.update(A, { ...existing, quantity: existing.quantity + 1 });
      else await b.usage.insert(A, usage(id, 'si_1', 20));
    };
    await rivals(
      one,
      two,
      () => record(b1, 'ur_1'),
      () => b2.items.get(A, 'si_1'),
      () => record(b2, 'ur_2'),
    );
    const all = await one.read(() => b1.usageDuring(A, 'si_1', 0, 100));
    expect(all.map((r) => [r.id, r.quantity])).toEqual([['ur_1', 2]]);
  });

  it("two of a past_due subscription's invoices paid at once: the second sees the first paid", async () => {
    const u = await migrated();
    const [one, two] = [open(u), open(u)];
    const [b1, b2] = [pgBillingStore(one), pgBillingStore(two)];
    await one.grouped(async () => {
      await b1.subscriptions.insert(A, sub('sub_1', 'cus_1', 'past_due', 100));
      await b1.invoices.insert(A, invoice('in_1', 'cus_1', 'sub_1', 'open'));
      await b1.invoices.insert(A, invoice('in_2', 'cus_1', 'sub_1', 'open'));
    });
    // The domain's rule (invoice-collection.ts, syncSubscription): paid, and none of the others unsettled → active again.
    const pay = async (b: BillingPort, id: string) => {
      const inv = (await b.invoices.get(A, id))!;
      await b.invoices.update(A, { ...inv, status: 'paid' });
      if ((await b.unsettledInvoicesOf(A, 'sub_1', id)).length > 0) return;
      const s = (await b.subscriptions.get(A, 'sub_1'))!;
      await b.subscriptions.update(A, { ...s, status: 'active' });
    };
    await rivals(
      one,
      two,
      () => pay(b1, 'in_1'),
      () => b2.invoices.get(A, 'in_2'),
      () => pay(b2, 'in_2'),
    );
    expect((await one.read(() => b1.subscriptions.get(A, 'sub_1')))!.status).toBe('active');
  });

  it('a coupon id chosen by two processes at once: one creates it, the other finds it taken', async () => {
    const u = await migrated();
    const [one, two] = [open(u), open(u)];
    const [b1, b2] = [pgBillingStore(one), pgBillingStore(two)];
    // The domain's rule (coupons.ts, create): a taken id is refused (409), else the coupon is inserted.
    const answers: string[] = [];
    const create = async (b: BillingPort, name: string) => {
      if (await b.coupons.get(A, 'SAVE')) return answers.push(`${name}: taken`);
      await b.coupons.insert(A, { id: 'SAVE', object: 'coupon', name } as Any);
      return answers.push(`${name}: created`);
    };
    await rivals(
      one,
      two,
      () => create(b1, 'first'),
      () => b2.customers.get(A, 'cus_1'),
      () => create(b2, 'second'),
    );
    expect(answers.slice(-2)).toEqual(['first: created', 'second: taken']);
    expect((await one.read(() => b1.coupons.get(A, 'SAVE')))?.name).toBe('first');
    // An id the transaction can see taken still fails as the plain insert does (the domain never asks it).
    await expect(one.grouped(() => b1.coupons.insert(A, { id: 'SAVE', object: 'coupon' } as Any))).rejects.toThrow(
      /duplicate key/,
    );
  });

  // The domain's delete rules (customers.ts, products.ts): refused while a child exists. A child created meanwhile by
  // another process must either be seen by the delete (run again) or find its parent gone — never both committed.
  interface Parent {
    name: string;
    make: (b: BillingPort) => Promise<unknown>;
    children: (b: BillingPort) => Promise<readonly unknown[]>;
    remove: (b: BillingPort) => Promise<unknown>;
    parent: (b: BillingPort) => Promise<unknown>;
    child: (b: BillingPort) => Promise<unknown>;
    childNow: (b: BillingPort) => Promise<unknown>;
  }
  const parents: Parent[] = [
    {
      name: 'a customer deleted while a subscription of it is created',
      make: (b: BillingPort) => b.customers.insert(A, customer('cus_1')),
      children: (b: BillingPort) => b.liveSubscriptionsOf(A, 'cus_1'),
      remove: (b: BillingPort) => b.customers.delete(A, 'cus_1'),
      parent: (b: BillingPort) => b.customers.get(A, 'cus_1'),
      child: (b: BillingPort) => b.subscriptions.insert(A, sub('sub_1', 'cus_1', 'active', 100)),
      childNow: (b: BillingPort) => b.subscriptions.get(A, 'sub_1'),
    },
    {
      name: 'a product deleted while a price of it is created',
      make: (b: BillingPort) => b.products.insert(A, product('prod_1')),
      children: (b: BillingPort) => b.pricesOf(A, 'prod_1'),
      remove: (b: BillingPort) => b.products.delete(A, 'prod_1'),
      parent: (b: BillingPort) => b.products.get(A, 'prod_1'),
      child: (b: BillingPort) => b.prices.insert(A, price('price_1', 'prod_1')),
      childNow: (b: BillingPort) => b.prices.get(A, 'price_1'),
    },
  ];
  for (const p of parents)
    it(`${p.name}: the delete sees the new child and refuses`, async () => {
      const u = await migrated();
      const [one, two] = [open(u), open(u)];
      const [b1, b2] = [pgBillingStore(one), pgBillingStore(two)];
      await one.grouped(() => p.make(b1));
      const checked = signal();
      const created = signal();
      const [deleted] = await Promise.all([
        one.grouped(async () => {
          if ((await p.children(b1)).length > 0) return false;
          checked.give();
          await created.promise;
          return p.remove(b1);
        }),
        two.grouped(async () => {
          // The parent as the domain finds it before creating a child, once the delete has found none.
          await checked.promise;
          expect(await p.parent(b2)).toBeDefined();
          await p.child(b2);
          created.give();
        }),
      ]);
      expect(deleted).toBe(false);
      expect(await one.read(() => p.parent(b1))).toBeDefined();
      expect(await one.read(() => p.childNow(b1))).toBeDefined();
    });
});
