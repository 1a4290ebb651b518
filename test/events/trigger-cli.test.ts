// `payorch trigger` with the Stripe CLI's data flags, through the real binary against a real server: --override,
// --add, --remove and --skip reach the objects the scenario makes (read back from the API); --list shows each
// scenario's steps; unknown steps and malformed flags are exit 2 before any request; --raw and --edit run a
// fixture through the fixture runner (--edit only at a terminal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/inprocess.js';
import { fakeEditor } from '../helpers/editor.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s.close());

const trigger = (args: string[], input?: string) => runCli(['trigger', ...args, ...against(s)], { input });
const get = async (path: string) => (await s.request('GET', path)).body;
const total = async () => (await get('/events?limit=1')).total_count as number;

describe('payorch trigger --override / --add / --remove / --skip', () => {
  it('the changes reach the objects made (read back); the answer lists the steps', async () => {
    const r = await trigger([
      'payment.captured',
      '--json',
      '--override',
      'session:amount=750',
      '--add',
      'session:metadata.order=42',
      '--override',
      'session:description=9',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out.steps).toEqual(['session', 'payment']);
    const session = await get(`/sessions/${out.objects.payment_session}`);
    // a number stays a number where the body has one, text where it has text; metadata values are text
    expect(session).toMatchObject({ amount: 750, metadata: { order: '42' }, description: '9' });
    expect((await get(`/payments/${out.objects.payment}`)).amount).toBe(750);

    const removed = await trigger(['customer.created', '--json', '--remove', 'customer:name']);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await get(`/customers/${removed.json().objects.customer}`)).name ?? null).toBeNull();
  });

  it('--override of the payment step changes the card: payment.failed with another decline', async () => {
    const r = await trigger([
      'payment.failed',
      '--json',
      '--override',
      'payment:token_id=tok_chargeDeclinedInsufficientFunds',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const failed = r.json().events.find((e: any) => e.type === 'payment.failed');
    expect(JSON.stringify(failed.data.object)).toContain('insufficient_funds');
  });

  it('--skip customer with --override subscription:customer subscribes your own customer', async () => {
    const cus = (
      await s.request('POST', '/customers', { body: { email: 'own@example.com', default_payment_method: 'tok_visa' } })
    ).body;
    const r = await trigger([
      'subscription.created',
      '--skip',
      'customer',
      '--override',
      `subscription:customer=${cus.id}`,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((await get(`/subscriptions/${r.json().objects.subscription}`)).customer).toBe(cus.id);

    // without the param given, the skip is refused, naming what to give: the API's 400 (exit 1), nothing left
    const before = await total();
    const refused = await trigger(['subscription.created', '--skip', 'customer']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'the step "customer" makes what the step "subscription" takes as customer: skip it only with that param given (--override subscription:customer=…)',
    );
    const acted = await trigger(['payment.captured', '--skip', 'session']);
    expect([acted.code, acted.stderr]).toEqual([1, expect.stringContaining('the step "session" cannot be skipped')]);
    expect(await total()).toBe(before);
  });

  it('unknown steps and malformed flags are exit 2 naming them, before any request', async () => {
    const before = await total();
    const cases: [string[], string][] = [
      [
        ['payment.captured', '--override', 'sesion:amount=5'],
        '--override sesion:amount: payment.captured has no step "sesion" (its steps: session, payment; `payorch trigger --list`)',
      ],
      [['payment.captured', '--skip', 'customer'], '--skip customer: payment.captured has no step "customer"'],
      [['payment.captured', '--override', 'amount=5'], 'no step name before ":"'],
      [['payment.captured', '--add', 'session:amount'], 'no "=VALUE"'],
      [['payment.captured', '--remove', 'session:a]b'], 'is not a param path'],
      [['network_token.created', '--override', 'x:y=1'], 'it has no steps to change'],
      [['payment.captured', '--edit', '--override', 'session:amount=5'], '--edit cannot be used with --override'],
      [['payment.captured', '--raw', '{}', '--amount', '5'], '--amount is for the server'],
      [['payment.captured', '--raw', '{"fixtures": [}'], '--raw: not valid JSON'],
      [['--raw', ' '], '--raw is blank'],
      [['payment.captured', '--raw', '{}', '--edit'], '--raw and --edit: give one'],
      [['payment.captured', '--edit'], '--edit opens the fixture in your editor, which needs a terminal'],
    ];
    for (const [args, message] of cases) {
      const r = await trigger(args);
      expect([r.code, r.stderr], args.join(' ')).toEqual([2, expect.stringContaining(message)]);
    }
    // a value the route refuses is the API's 400, naming step:param
    const bad = await trigger(['payment.captured', '--override', 'session:amount=abc', '--json']);
    expect(bad.code).toBe(1);
    expect(bad.json().error).toMatchObject({ param: 'session:amount', code: 'parameter_invalid' });
    expect(await total()).toBe(before);
  });

  it('--list shows the steps of each scenario', async () => {
    const list = await runCli(['trigger', '--list', '--json']);
    const captured = list.json().find((t: any) => t.type === 'payment.captured');
    expect(captured.steps).toEqual([
      { name: 'session', request: 'POST /create-session' },
      { name: 'payment', request: 'POST /confirm-payment/{session}' },
    ]);
    const human = await runCli(['trigger', '--list']);
    expect(human.stdout).toMatch(/subscription\.updated\s+customer price subscription update/);
  });
});

describe('payorch trigger --raw / --edit', () => {
  const raw = JSON.stringify({
    _meta: { template_version: 0 },
    fixtures: [
      { name: 'customer', path: '/customers', method: 'post', params: { email: 'raw@example.com', name: 'Raw' } },
    ],
  });

  it('--raw runs the fixture given (or from stdin), the data flags applied, anew each time', async () => {
    const a = await trigger(['customer.created', '--raw', raw, '--json', '--override', 'customer:name=Changed']);
    expect(a.code, a.stderr).toBe(0);
    expect(await get(`/customers/${a.json().customer.id}`)).toMatchObject({
      email: 'raw@example.com',
      name: 'Changed',
    });
    const b = await trigger(['--raw', '-'], raw);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/✓ customer {2}POST \/customers {2}201/);
    expect(b.stdout).not.toContain('replayed');
    // the same fixture again makes a new customer (a trigger makes its event anew), not a replay
    const [c1, c2] = [await trigger(['--raw', raw, '--json']), await trigger(['--raw', raw, '--json'])];
    expect(c1.json().customer.id).not.toBe(c2.json().customer.id);
  });

  it('--edit opens the built-in fixture in $EDITOR at a terminal and runs what was saved', async () => {
    const editor = fakeEditor('"payorch fixture"', '"Edited in the editor"');
    const r = await runInProcess('trigger', ['customer.created', '--edit', ...against(s)], {
      tty: true,
      env: { VISUAL: editor },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = (r.result as any).customer.id;
    expect((await get(`/customers/${id}`)).name).toBe('Edited in the editor');
  });
});
