// The views support staff read all day (issue 30): multi-line values laid out a line per row, tables that fit
// the terminal, invoices that say who, and one date format everywhere — commands run in process through their
// IO seam against a real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against } from '../helpers/cli.js';
import { runInProcess } from '../helpers/inprocess.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s.close());

const run = (id: string, argv: string[], opts: Parameters<typeof runInProcess>[2] = {}) =>
  runInProcess(id, [...argv, ...against(s)], opts);

async function ledgerAccount(name: string, type: 'asset' | 'liability'): Promise<string> {
  const r = await s.request('POST', '/ledger-accounts', { body: { name, account_type: type, currency: 'usd' } });
  expect(r.status).toBe(201);
  return r.body.id;
}

/** The rows of a detail view from the row labelled `label` on: that row and the rows indented under it. */
function rowsOf(view: string, label: string): string[] {
  const lines = view.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^  ${label}\\s`).test(l));
  expect(at, view).toBeGreaterThanOrEqual(0);
  const column = lines[at]!.slice(2 + label.length).search(/\S/) + 2 + label.length;
  const rows = [lines[at]!.slice(column)];
  for (const l of lines.slice(at + 1)) {
    if (!/^\s+$/.test(l.slice(0, column)) || l.length <= column) break;
    rows.push(l.slice(column));
  }
  return rows;
}

describe('multi-line values: a line per row, under the label', () => {
  it('ledger post and ledger reverse: each line of the journal entry on its own row', async () => {
    const cash = await ledgerAccount('Cash', 'asset');
    const wallet = await ledgerAccount('Wallet', 'liability');
    const posted = await run('ledger post', [
      '--debit',
      `${cash}=250`,
      '--credit',
      `${wallet}=250`,
      '--description',
      'top-up',
    ]);
    expect(posted.code, posted.stderr).toBe(0);
    expect(posted.stdout).not.toContain('\\n');
    expect(rowsOf(posted.stdout, 'lines')).toEqual([`debit  ${cash} 2.50 USD`, `credit ${wallet} 2.50 USD`]);
    const id = /\b(je_\w+)/.exec(posted.stdout)![1]!;

    const reversed = await run('ledger reverse', [id]);
    expect(reversed.code, reversed.stderr).toBe(0);
    expect(reversed.stdout).not.toContain('\\n');
    expect(rowsOf(reversed.stdout, 'lines')).toEqual([`credit ${cash} 2.50 USD`, `debit  ${wallet} 2.50 USD`]);
  });

  it('invoices create with several items: one row per line', async () => {
    const customer = (await s.request('POST', '/customers', { body: { email: 'lines@example.test' } })).body.id;
    const r = await run('invoices create', [
      '--customer',
      customer,
      '--currency',
      'usd',
      '--item',
      '500=Setup fee',
      '--item',
      '1200=Support, March',
      '--item',
      '300=Travel',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\\n');
    expect(rowsOf(r.stdout, 'lines')).toEqual(['Setup fee: 5.00 USD', 'Support, March: 12.00 USD', 'Travel: 3.00 USD']);
  });

  it('kyc get: one row per check', async () => {
    const k = (
      await s.request('POST', '/kyc-verifications', {
        body: { customer_id: 'cus_views', verification_level: 'enhanced' },
      })
    ).body;
    const r = await run('kyc get', [k.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\\n');
    expect(rowsOf(r.stdout, 'checks').map((row) => row.split(':')[0])).toEqual([
      'identity',
      'watchlist',
      'document',
      'address',
    ]);
  });

  it('a line break inside data is still escaped, never a new row', async () => {
    const customer = (await s.request('POST', '/customers', { body: { email: 'escape@example.test' } })).body.id;
    const lines = [
      { amount: 100, description: 'two\nrows\x1b[2J' },
      { amount: 200, description: 'next' },
    ];
    const inv = (await s.request('POST', '/invoices', { body: { customer, currency: 'usd', lines } })).body;
    const r = await run('invoices get', [inv.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(rowsOf(r.stdout, 'lines')).toEqual(['two\\nrows\\x1b[2J: 1.00 USD', 'next: 2.00 USD']);
  });
});

describe('one date format', () => {
  it('server status shows when the server started as every view shows times (2026-11-25 18:48:15 UTC), not raw ISO', async () => {
    const disk = await startTestServer();
    try {
      const r = await runInProcess('server status', ['--data-dir', disk.dataDir!]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^ {2}since\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/m);
      expect(r.stdout).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
    } finally {
      await disk.close();
    }
  });
});

describe('tables fit the terminal', () => {
  const visible = (line: string) => [...line].length;

  it('ledger list in 80 columns: every row fits; ids and amounts whole, names cut with …, low-value columns left out', async () => {
    const customer = 'cus_a_rather_long_customer_reference_0001';
    const names = ['Customer wallet for Jenny Rosen, the long-standing customer', 'Cash'];
    const ids: string[] = [];
    for (const name of names) {
      const r = await s.request('POST', '/ledger-accounts', {
        body: { name, account_type: 'liability', currency: 'usd', customer_id: customer },
      });
      ids.push(r.body.id);
    }
    const argv = ['--customer', customer];
    const wide = await run('ledger list', argv, { tty: true, columns: 80 });
    expect(wide.code, wide.stderr).toBe(0);
    const lines = wide.stdout.trimEnd().split('\n');
    for (const line of lines) expect(visible(line), line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+BALANCE\s+AVAILABLE$/);
    for (const id of ids) expect(wide.stdout).toMatch(new RegExp(`^${id}\\s`, 'm'));
    expect(wide.stdout).toMatch(/Customer wallet[^\n]*…\s+active\s+0\.00 USD\s+0\.00 USD$/m);

    // Not a terminal (a pipe, a file): every value whole, as before; --json is the API object.
    const piped = await run('ledger list', argv);
    expect(piped.stdout).toContain(names[0]);
    expect(piped.stdout).toContain(customer);
    expect(piped.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+TYPE\s+STATUS\s+BALANCE\s+AVAILABLE\s+CUSTOMER$/);
    const json = await run('ledger list', [...argv, '--json'], { tty: true, columns: 80 });
    expect(JSON.parse(json.stdout).data.map((a: { name: string }) => a.name)).toEqual([...names].reverse());

    // A terminal wide enough: nothing cut or left out.
    const roomy = await run('ledger list', argv, { tty: true, columns: 200 });
    expect(roomy.stdout).toBe(piped.stdout);
  });
});

describe('invoices list says who', () => {
  it('the CUSTOMER column shows the email (else the name, else the id), each customer looked up once; --json keeps ids', async () => {
    const make = async (body: object) => (await s.request('POST', '/customers', { body })).body.id as string;
    const jenny = await make({ email: 'jenny.rosen@example.test', name: 'Jenny Rosen' });
    const max = await make({ name: 'Max Mustermann' });
    const nobody = await make({});
    const invoice = async (customer: string) =>
      (await s.request('POST', '/invoices', { body: { customer, currency: 'usd', lines: [{ amount: 100 }] } })).body
        .id as string;
    const ids = [await invoice(jenny), await invoice(jenny), await invoice(max), await invoice(nobody)];

    const human = await run('invoices list', ['--limit', '100']);
    expect(human.code, human.stderr).toBe(0);
    const row = (id: string) => human.stdout.split('\n').find((l) => l.startsWith(id)) ?? '';
    expect(row(ids[0]!)).toContain('jenny.rosen@example.test');
    expect(row(ids[1]!)).toContain('jenny.rosen@example.test');
    expect(row(ids[2]!)).toContain('Max Mustermann');
    expect(row(ids[3]!)).toContain(nobody);
    const lookups = human.requests
      .filter((q) => q.method === 'GET' && q.path.startsWith('/customers/'))
      .map((q) => q.path);
    expect(lookups.filter((p) => p === `/customers/${jenny}`)).toHaveLength(1);
    expect(new Set(lookups).size).toBe(lookups.length);

    const json = await run('invoices list', ['--limit', '100', '--json']);
    expect(json.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /invoices?limit=100']);
    const data = JSON.parse(json.stdout).data as { id: string; customer: string }[];
    expect(data.find((i) => i.id === ids[0])?.customer).toBe(jenny);
  });
});

describe('a payment waiting for 3D Secure says what to do next', () => {
  it('sessions confirm, payments get, sessions get and trigger payment.requires_action name `payorch threeds complete SESSION`', async () => {
    const session = (await s.request('POST', '/create-session', { body: { amount: 1999, currency: 'usd' } })).body
      .id as string;
    const next = `payorch threeds complete ${session}`;
    const confirmed = await run('sessions confirm', [session, '--card', '4000000000003220']);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stdout).toMatch(/status\s+requires_action/);
    expect(rowsOf(confirmed.stdout, 'next action')).toEqual([
      expect.stringMatching(/^3D Secure challenge: open http:\/\/\S+\/pay\//),
      `or run \`${next}\``,
    ]);
    expect(confirmed.stderr).not.toContain(next); // said once, in the view

    const paymentId = /^ {2}id\s+(\S+)$/m.exec(confirmed.stdout)![1]!;
    const payment = await run('payments get', [paymentId]);
    expect(rowsOf(payment.stdout, 'next action')[1]).toBe(`or run \`${next}\``);
    const got = await run('sessions get', [session]);
    expect(rowsOf(got.stdout, 'next action')[1]).toBe(`or run \`${next}\``);

    const triggered = await run('trigger', ['payment.requires_action']);
    expect(triggered.code, triggered.stderr).toBe(0);
    const made = (triggered.result as { objects: { payment_session: string } }).objects.payment_session;
    expect(triggered.stdout).toContain(
      `Next: run \`payorch threeds complete ${made}\` to complete the 3D Secure challenge.`,
    );

    // Once completed, nothing is left to do.
    expect((await run('threeds complete', [session])).code).toBe(0);
    expect((await run('payments get', [paymentId])).stdout).not.toContain('next action');
  });
});
