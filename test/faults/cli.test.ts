// Fault injection from the CLI (docs/api.md "Fault injection"), the real binary against a real server: --simulate
// (refused with a live key before anything is sent), `server faults add|list|clear`, `server start --faults FILE`,
// and the marks in `logs tail`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { against, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { spawnCli } from '../cli-events/util.js';
import { closedPort } from '../helpers/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());

describe('payorch and fault injection', () => {
  it('api --simulate after_commit=reset: the CLI retries with its key and prints the saved answer; one session', async () => {
    const before = (await s.request('GET', '/sessions?limit=1')).body.total_count;
    const r = await runCli([
      'api',
      'POST',
      '/create-session',
      '--data',
      '{"amount":4321,"currency":"usd"}',
      '--simulate',
      'after_commit=reset',
      '--json',
      ...against(s),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ amount: 4321 });
    expect((await s.request('GET', '/sessions?limit=1')).body.total_count).toBe(before + 1);
    // a malformed fault is the server's 400, as the API's errors are
    const bad = await runCli(['api', 'GET', '/sessions', '--simulate', 'teapot', '--json', ...against(s)]);
    expect(bad.code).not.toBe(0);
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'Payorch-Simulate' });
  });

  it('--simulate with a live key: exit 2, simulate_with_live_key, nothing sent', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/functions/v1`;
    for (const args of [
      ['api', 'GET', '/sessions'],
      ['sessions', 'list'],
    ]) {
      const r = await runCli([
        ...args,
        '--simulate',
        'status=503',
        '--json',
        '--base-url',
        baseUrl,
        '--api-key',
        'sk_live_abcdef',
      ]);
      expect(r.code).toBe(2);
      expect(r.json().error).toMatchObject({ code: 'simulate_with_live_key' });
      expect(r.stderr).toMatch(/never sent with a live key/);
    }
  });

  it('server faults add | list | clear', async () => {
    const added = await runCli([
      'server',
      'faults',
      'add',
      '--fault',
      'status=503',
      '--method',
      'GET',
      '--path',
      'sessions',
      '--count',
      '1',
      '--json',
      ...against(s),
    ]);
    expect(added.code, added.stderr).toBe(0);
    const rule = added.json();
    expect(rule).toMatchObject({
      object: 'fault_rule',
      fault: 'status=503',
      method: 'GET',
      path: '/sessions',
      count: 1,
      remaining: 1,
    });
    const human = await runCli([
      'server',
      'faults',
      'add',
      '--fault',
      'reset',
      '--webhook-endpoint',
      '*',
      '--rate',
      '0.5',
      ...against(s),
    ]);
    expect(human.stdout).toMatch(/^Added fault rule flt_\d+: reset on webhooks → every endpoint \(rate 0\.5\)\./);
    expect((await s.request('GET', '/sessions')).status).toBe(503);
    const list = await runCli(['server', 'faults', 'list', ...against(s)]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(`${rule.id}\\s+account\\s+GET /sessions\\s+status=503\\s+every match, first 1\\s+1\\s+1\\s+spent`),
    );
    const bad = await runCli(['server', 'faults', 'add', '--fault', 'status=503', '--rate', '2', ...against(s)]);
    expect(bad.code).toBe(2);
    const one = await runCli(['server', 'faults', 'clear', rule.id, '--json', ...against(s)]);
    expect(one.json()).toEqual({ id: rule.id, object: 'fault_rule', deleted: true });
    const all = await runCli(['server', 'faults', 'clear', ...against(s)]);
    expect(all.stdout.trim()).toBe('Deleted 1 fault rule.');
  });

  it('server faults add with no server running (the embedded server in the command) is refused, not "added" to a server that ends with it', async () => {
    const r = await runCli(['server', 'faults', 'add', '--fault', 'status=503', '--json'], {
      env: { PAYORCH_DAEMON: '0' },
    });
    expect(r.code).toBe(2);
    expect(r.json().error).toMatchObject({
      code: 'no_server',
      message: expect.stringMatching(/fault rules live in a running server/),
    });
  });

  it('server start --faults FILE: the rules for every account; a bad file is a usage error naming the rule', async () => {
    const dir = tempDir();
    const file = join(dir, 'faults.json');
    writeFileSync(
      file,
      JSON.stringify([{ fault: 'status=429;retry_after=1', method: 'GET', path: '/sessions', count: 1 }]),
    );
    const home = tempDir(); // the same PAYORCH_HOME for the stop: `server stop --pid` stops only its own home's servers
    const started = await runCli(
      ['server', 'start', '--memory', '--port', '0', '--detach', '--faults', file, '--json'],
      { home },
    );
    expect(started.code, started.stderr).toBe(0);
    const { base_url, api_key, pid } = started.json();
    try {
      const res = await fetch(`${base_url}/sessions`, { headers: { authorization: `Bearer ${api_key}` } });
      expect([res.status, res.headers.get('retry-after')]).toEqual([429, '1']);
      expect((await fetch(`${base_url}/sessions`, { headers: { authorization: `Bearer ${api_key}` } })).status).toBe(
        200,
      );
    } finally {
      const stopped = await runCli(['server', 'stop', '--pid', String(pid)], { home });
      expect(stopped.code, stopped.stderr).toBe(0);
    }
    writeFileSync(file, JSON.stringify([{ fault: 'status=418' }]));
    const bad = await runCli(['server', 'start', '--memory', '--port', '0', '--faults', file, '--json']);
    expect(bad.code).toBe(2);
    expect(bad.json().error).toMatchObject({
      code: 'invalid_faults',
      message: expect.stringMatching(/^Fault rule 1 of 1: Invalid fault: status must be one of/),
    });
    writeFileSync(file, '{"fault":"reset"}');
    expect(
      (await runCli(['server', 'start', '--memory', '--port', '0', '--faults', file, '--json'])).json().error.code,
    ).toBe('invalid_faults');
  });

  it('logs tail marks each injected fault', async () => {
    const tail = spawnCli(['logs', 'tail', '--json', ...against(s)]);
    const human = spawnCli(['logs', 'tail', ...against(s)]);
    let last = '';
    try {
      await Promise.all([
        tail.waitFor('stderr', (t) => t.includes('Ready')),
        human.waitFor('stderr', (t) => t.includes('Ready')),
      ]);
      await s.request('GET', '/sessions', { headers: { 'Payorch-Simulate': 'status=503' } });
      await fetch(`${s.baseUrl}/sessions`, {
        headers: { authorization: `Bearer ${s.apiKey}`, 'payorch-simulate': 'reset' },
      }).catch(() => undefined);
      last = (await s.request('GET', '/sessions')).headers.get('request-id')!;
      await tail.waitFor('stdout', (t) => t.includes(last));
      await human.waitFor('stdout', (t) => t.includes(last));
    } finally {
      await tail.stop('SIGINT');
      await human.stop('SIGINT');
    }
    const entries = tail
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => [e.status, e.simulated])).toEqual([
      [503, 'status=503'],
      [0, 'reset'],
      [200, undefined],
    ]);
    const lines = human.stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(/503 +GET +\/sessions .*SIMULATED status=503$/);
    expect(lines[1]).toMatch(/--- +GET +\/sessions .*SIMULATED reset$/);
    expect(lines[2]).not.toMatch(/SIMULATED/);
  });
});
