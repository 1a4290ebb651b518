// `payorch webhooks …`, `events resend` and `trigger` against the webhooks API (docs/api.md "Events and
// webhooks"): what each command sends, in process against the real client and a real server, then end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes } from '../../dist/lib/contract/events.js';
import { against, runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/inprocess.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const body = (r: { body?: string }) => JSON.parse(r.body!);

describe('what the webhooks commands send', () => {
  it('create: url, the checked event patterns, description, enabled; update: only what is given; secret --roll: expires_in_seconds', async () => {
    const c = await runInProcess('webhooks create', [
      '--url',
      'https://example.test/hook',
      '--events',
      'payment.*, refund.succeeded',
      '--description',
      'shop',
      '--disabled',
      '--metadata',
      'team=pay',
      '--json',
      ...against(s),
    ]);
    expect(c.requests.map((r) => [r.method, r.path])).toEqual([['POST', '/webhook-endpoints']]);
    expect(body(c.requests[0]!)).toEqual({
      url: 'https://example.test/hook',
      enabled_events: ['payment.*', 'refund.succeeded'],
      description: 'shop',
      enabled: false,
      metadata: { team: 'pay' },
    });

    const u = await runInProcess('webhooks update', ['we_1', '--enable', '--description', '', '--json', ...against(s)]);
    expect(u.requests.map((r) => [r.method, r.path])).toEqual([['PATCH', '/webhook-endpoints/we_1']]);
    expect(body(u.requests[0]!)).toEqual({ enabled: true, description: null });
    const nothing = await runInProcess('webhooks update', ['we_1', ...against(s)]);
    expect(nothing.code).toBe(2);
    expect(nothing.requests).toEqual([]);

    const roll = await runInProcess('webhooks secret', [
      'we_1',
      '--roll',
      '--expires-in',
      '3600',
      '--json',
      ...against(s),
    ]);
    expect(roll.requests.map((r) => [r.method, r.path])).toEqual([['POST', '/webhook-endpoints/we_1/roll-secret']]);
    expect(body(roll.requests[0]!)).toEqual({ expires_in_seconds: 3600 });
    const reveal = await runInProcess('webhooks secret', ['we_1', ...against(s)]);
    expect(reveal.requests.map((r) => [r.method, r.path])).toEqual([['GET', '/webhook-endpoints/we_1/secret']]);

    const resend = await runInProcess('events resend', [
      'evt_1',
      '--webhook-endpoint',
      'we_1',
      '--json',
      ...against(s),
    ]);
    expect(resend.requests.map((r) => [r.method, r.path])).toEqual([['POST', '/events/evt_1/resend']]);
    expect(body(resend.requests[0]!)).toEqual({ webhook_endpoint: 'we_1' });
    const deliveries = await runInProcess('webhooks deliveries', ['we_1', '--status', 'failed', ...against(s)]);
    expect(deliveries.requests[0]!.path).toBe('/webhook-endpoints/we_1/deliveries?status=failed');

    const badEvents = await runInProcess('webhooks create', [
      '--url',
      'https://example.test/hook',
      '--events',
      'payment.captred',
      ...against(s),
    ]);
    expect(badEvents.code).toBe(2);
    expect(badEvents.stderr).toContain('Did you mean payment.captured?');
    expect(badEvents.requests).toEqual([]);
  });

  it('delete asks at a terminal ("no" sends nothing, exit 2); --yes and --json do not ask', async () => {
    const no = await runInProcess('webhooks delete', ['we_1', ...against(s)], { tty: true, answers: [false] });
    expect(no.code).toBe(2);
    expect(no.requests).toEqual([]);
    const yes = await runInProcess('webhooks delete', ['we_1', ...against(s)], { tty: true, answers: [true] });
    expect(yes.requests.map((r) => [r.method, r.path])).toEqual([['DELETE', '/webhook-endpoints/we_1']]);
    for (const flag of ['--yes', '--json']) {
      const r = await runInProcess('webhooks delete', ['we_1', flag, ...against(s)], { tty: true, answers: [] });
      expect(
        r.requests.map((x) => x.method),
        flag,
      ).toEqual(['DELETE']);
    }
  });

  it('trigger sends the checked type and the overrides given', async () => {
    const t = await runInProcess('trigger', [
      'payment.captured',
      '--amount',
      '500',
      '--currency',
      'eur',
      '--json',
      ...against(s),
    ]);
    expect(t.requests.map((r) => [r.method, r.path])).toEqual([['POST', '/test-helpers/trigger']]);
    expect(body(t.requests[0]!)).toEqual({ amount: 500, currency: 'eur', event_type: 'payment.captured' });
  });
});

describe('payorch webhooks, end to end', () => {
  it('create prints the secret once; list, get, update, secret (masked, --show, --roll), delete', async () => {
    const made = await runCli([
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/hook',
      '--events',
      'payment.*',
      ...against(s),
    ]);
    expect(made.code, made.stderr).toBe(0);
    const secret = /whsec_\S+/.exec(made.stdout)?.[0];
    expect(secret).toBeDefined();
    const id = /we_\w+/.exec(made.stdout)![0];
    const list = await runCli(['webhooks', 'list', ...against(s)]);
    expect(list.stdout).toContain(id);
    expect(list.stdout).not.toContain(secret!);
    const got = await runCli(['webhooks', 'get', id, ...against(s)]);
    expect(got.stdout).toContain('payment.*');
    expect(got.stdout).not.toContain(secret!);
    const updated = await runCli(['webhooks', 'update', id, '--disable', '--json', ...against(s)]);
    expect(updated.json()).toMatchObject({ id, enabled: false });
    const masked = await runCli(['webhooks', 'secret', id, ...against(s)]);
    expect(masked.stdout).not.toContain(secret!);
    expect(masked.stdout).toContain(`whsec_…${secret!.slice(-4)}`);
    expect((await runCli(['webhooks', 'secret', id, '--show', ...against(s)])).stdout.trim()).toBe(secret);
    const rolled = await runCli(['webhooks', 'secret', id, '--roll', '--json', ...against(s)]);
    expect(rolled.json().secret).toMatch(/^whsec_/);
    expect(rolled.json().secret).not.toBe(secret);
    const del = await runCli(['webhooks', 'delete', id, '--json', ...against(s)]);
    expect(del.json()).toEqual({ id, object: 'webhook_endpoint', deleted: true });
    expect((await runCli(['webhooks', 'get', id, ...against(s)])).code).toBe(1);
  });
});

describe('payorch trigger, end to end', () => {
  // Every type through the command (its real class, client and HTTP, in this process: ~60 binary start-ups
  // would take minutes on a shared CI machine), a few through the binary.
  it('every type of the catalog: the answer holds an event of that type, exactly as the event log has it', async () => {
    for (const type of eventTypes) {
      const r = await runInProcess('trigger', [type, '--json', ...against(s)]);
      expect(r.code, `${type}: ${r.stderr}`).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ object: 'trigger', event_type: type });
      const mine = out.events.find((e: { type: string }) => e.type === type);
      expect(mine, type).toBeDefined();
      expect((await s.request('GET', `/events/${mine.id}`)).body).toEqual(mine);
    }
  }, 300_000);

  it('the binary: --json for a few types, and a human run names the events it caused', async () => {
    for (const type of ['payment.captured', 'invoice.paid', 'hold.released'].filter((t) =>
      eventTypes.some((e) => e === t),
    )) {
      const r = await runCli(['trigger', type, '--json', ...against(s)], { timeoutMs: 60_000 });
      expect(r.code, `${type}: ${r.stderr}`).toBe(0);
      expect(r.json().events.map((e: { type: string }) => e.type)).toContain(type);
    }
    const r = await runCli(['trigger', 'payment.captured', ...against(s)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Triggered payment\.captured: \d+ events?\./);
    expect(r.stdout).toMatch(/evt_\w+\s+payment\.captured/);
  }, 120_000);
});
