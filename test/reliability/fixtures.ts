// Real objects for the fuzzer to aim at: sessions with client secrets, payments, ledger accounts with a hold and an
// entry, a bank account, a network token, an identity token, a KYC verification, billing objects. Seeded by path-param name; areas
// added later are found by the fuzzer itself (ids it sees in 2xx answers). A failed seed is not fatal.
import type { TestServer } from '../helpers/server.js';
import { Pools } from './fuzz-driver.js';

export async function seed(s: TestServer): Promise<Pools> {
  const pools = new Pools();
  const post = async (path: string, body: unknown, key?: string | null) => {
    const r = await s.request('POST', path, { body, key });
    if (r.status < 300) pools.learn(r.text);
    return r.status < 300 ? r.body : undefined;
  };
  const add = (param: string, v: { id?: string } | undefined) => v?.id && pools.add(param, v.id);

  for (let i = 0; i < 4; i++)
    add(
      'session_id',
      await post('/create-session', {
        amount: 5000 + i,
        currency: 'usd',
        capture_method: i % 2 ? 'manual' : 'automatic',
      }),
    );
  const sessions = pools.sessions.slice();
  const paid = await s.request('POST', `/confirm-payment/${sessions[0]!.id}`, {
    body: { token_id: 'tok_visa' },
    key: sessions[0]!.client_secret,
  });
  if (paid.status === 200) pools.add('payment_id', paid.body.id);
  const auth = await s.request('POST', `/confirm-payment/${sessions[1]!.id}`, {
    body: { token_id: 'tok_visa' },
    key: sessions[1]!.client_secret,
  });
  if (auth.status === 200) pools.add('payment_id', auth.body.id);
  // sessions still open for the client-secret routes
  for (let i = 0; i < 3; i++) add('session_id', await post('/create-session', { amount: 700, currency: 'eur' }));

  const cash = await post('/ledger-accounts', { name: 'Cash', account_type: 'asset', currency: 'usd' });
  const wallet = await post('/ledger-accounts', { name: 'Wallet', account_type: 'liability', currency: 'usd' });
  add('account_id', cash);
  add('account_id', wallet);
  if (cash && wallet) {
    const je = await post('/journal-entries', {
      description: 'seed',
      entries: [
        { account_id: cash.id, direction: 'debit', amount: 100_000 },
        { account_id: wallet.id, direction: 'credit', amount: 100_000 },
      ],
    });
    add('journal_entry_id', je);
    for (let i = 0; i < 3; i++)
      add('hold_id', await post(`/ledger-accounts/${wallet.id}/holds`, { amount: 100, description: `seed ${i}` }));
  }
  add(
    'bank_account_id',
    await post('/bank-accounts', {
      account_number: '000123456789',
      routing_number: '110000000',
      holder_name: 'Jenny Rosen',
    }),
  );
  add('network_token_id', await post('/network-tokens', { token_id: 'tok_mastercard' }));
  const idt = await post('/identity-tokens', { type: 'ssn', value: '123456789' });
  if (idt?.token_id) pools.add('token_id', idt.token_id);
  add(
    'verification_id',
    await post('/kyc-verifications', {
      customer_id: 'cus_fuzz',
      verification_level: 'basic',
      ...(idt ? { identity_token_ids: [idt.token_id] } : {}),
    }),
  );
  for (const psp of ['aurora', 'basalt']) pools.add('psp', psp);

  // Billing: a customer with a card, a product with a monthly and a one-time price, a coupon, a subscription
  // (and its item), a draft invoice, a checkout and a portal session.
  const customer = await post('/customers', {
    email: 'fuzz@example.com',
    name: 'Fuzz',
    default_payment_method: 'tok_visa',
  });
  add('customer_id', customer);
  const product = await post('/products', { name: 'Fuzz plan' });
  add('product_id', product);
  if (product) {
    const monthly = await post('/prices', {
      product: product.id,
      currency: 'usd',
      unit_amount: 1500,
      recurring: { interval: 'month' },
    });
    const once = await post('/prices', { product: product.id, currency: 'usd', unit_amount: 900 });
    add('price_id', monthly);
    add('price_id', once);
    add('coupon_id', await post('/coupons', { percent_off: 10, duration: 'once' }));
    if (customer && monthly) {
      const sub = await post('/subscriptions', { customer: customer.id, items: [{ price: monthly.id, quantity: 1 }] });
      add('subscription_id', sub);
      add('item_id', sub?.items?.data?.[0]);
      add('invoice_id', await post('/invoices', { customer: customer.id }));
      add(
        'portal_session_id',
        await post('/portal-sessions', { customer: customer.id, return_url: 'https://example.com/account' }),
      );
    }
    if (once)
      add(
        'checkout_session_id',
        await post('/checkout-sessions', { mode: 'payment', line_items: [{ price: once.id, quantity: 1 }] }),
      );
  }
  return pools;
}
