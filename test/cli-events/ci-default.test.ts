// The CI default (no terminal, `CI` set, no key configured: each command runs the server in its own process) and
// what needs a server that outlives a command (README "Quick start"): webhook deliveries the job's commands call for
// go out — the background server is started to send them — and `logs tail` follows the server the job's other
// commands use. With PAYORCH_DAEMON=0 (nothing started) each says at once what to run instead. The real binary.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, runCliSlow } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { eventually, receiver, spawnCli } from './util.js';

/** A CI job's environment; the idle limit is a backstop should a test be cut short before its `server stop`. */
const CI = { CI: 'true', PAYORCH_IDLE_TIMEOUT: '120' };

const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await runCliSlow(['server', 'stop', '--all'], { home });
});

function jobHome(): string {
  const home = tempDir();
  homes.push(home);
  return home;
}

describe('without a terminal, with no key configured (a CI job)', () => {
  it('webhooks create, then trigger: the delivery goes out (the background server is started to send it)', async () => {
    const home = jobHome();
    const rx = await receiver();
    try {
      const made = await runCli(['webhooks', 'create', '--url', `http://127.0.0.1:${rx.port}/hook`, '--json'], {
        home,
        env: CI,
      });
      expect(made.code, made.stderr).toBe(0);
      expect(made.stderr).toMatch(/embedded test-mode server, in this process/); // in process, as before
      const fired = await runCliSlow(['trigger', 'customer.created', '--json'], { home, env: CI });
      expect(fired.code, fired.stderr).toBe(0);
      expect(fired.stderr).toMatch(
        /1 webhook delivery pending — started the test-mode server in the background to send it \(http:\/\/127\.0\.0\.1:\d+\/functions\/v1, pid \d+;/,
      );
      const event = fired.json().events.find((e: { type: string }) => e.type === 'customer.created');
      await eventually(() => rx.received.some((r) => JSON.parse(r.body).id === event.id));
      // The next command uses that server, and the delivery's outcome is there.
      const deliveries = await eventually(async () => {
        const r = await runCli(['events', 'deliveries', event.id, '--json'], { home, env: CI });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(/using the test-mode server at http:\/\/127\.0\.0\.1:\d+\/functions\/v1/);
        const list = r.json<{ data: { status: string }[] }>();
        return list.data[0]?.status === 'succeeded' ? list : undefined;
      });
      expect(deliveries.data).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it('logs tail follows the requests of the job’s other commands', async () => {
    const home = jobHome();
    const tail = spawnCli(['logs', 'tail', '--json'], { home, env: CI });
    try {
      await tail.waitFor('stderr', (t) => t.includes('Ready'));
      expect(tail.stderr()).toMatch(/started it in the background/);
      const made = await runCli(['customers', 'create', '--email', 'ci@example.test', '--json'], { home, env: CI });
      expect(made.code, made.stderr).toBe(0);
      const out = await tail.waitFor('stdout', (t) => t.includes('/customers'));
      const entry = JSON.parse(out.trim().split('\n')[0]!);
      expect(entry).toMatchObject({ method: 'POST', path: '/customers', status: 201 });
    } finally {
      expect(await tail.stop('SIGINT')).toEqual({ code: 0, signal: null });
    }
  });
});

describe('with PAYORCH_DAEMON=0 (no server is ever started)', () => {
  const env = { ...CI, PAYORCH_DAEMON: '0' };

  it('logs tail refuses at once, saying what to run', async () => {
    const r = await runCli(['logs', 'tail'], { home: tempDir(), env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('payorch logs tail needs a running server');
    expect(r.stderr).toContain('run `payorch server start` first');
    expect(r.stderr).not.toContain('Ready');
  });

  it('a trigger says its deliveries wait for a server, and the log shows them pending', async () => {
    const home = tempDir();
    const rx = await receiver();
    try {
      const made = await runCli(['webhooks', 'create', '--url', `http://127.0.0.1:${rx.port}/hook`], { home, env });
      expect(made.code, made.stderr).toBe(0);
      const fired = await runCli(['trigger', 'customer.created', '--json'], { home, env });
      expect(fired.code, fired.stderr).toBe(0);
      expect(fired.stderr).toContain('1 webhook delivery pending: they go out once a server runs on');
      expect(fired.stderr).toContain(
        '(`payorch server start`); PAYORCH_DAEMON=0 keeps every command in its own process',
      );
      const event = fired.json().events.find((e: { type: string }) => e.type === 'customer.created');
      const listed = await runCli(['events', 'deliveries', event.id, '--json'], { home, env });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.json().data).toMatchObject([{ status: 'pending', attempts: 0 }]);
      expect(rx.received).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });
});
