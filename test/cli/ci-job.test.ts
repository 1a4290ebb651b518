// A CI job in one line (issue 28): `eval "$(payorch server start --detach --port 0 --env)"` starts a server in
// the background and exports PAYORCH_BASE_URL / PAYORCH_API_KEY for the rest of the job, as ssh-agent does;
// `payorch server stop` in a trap ends that server. Driven through bash and the real binary.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCliSlow } from '../helpers/cli.js';
import { alive, stoppedAfterAll } from '../helpers/processes.js';
import { tempDir } from '../helpers/tmp.js';

const runCli = runCliSlow;
const pids = stoppedAfterAll();

/** Runs a bash script with `payorch` as a function calling the real binary, in `dir`, with PAYORCH_HOME=home. */
function bash(script: string, dir: string, home: string, env: Record<string, string> = {}) {
  const clean: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAYORCH_') && k !== 'FORCE_COLOR') clean[k] = v;
  const prelude = `payorch() { "${process.execPath}" "${BIN}" "$@"; }\n`;
  return spawnSync('bash', ['-c', prelude + script], {
    cwd: dir,
    env: { ...clean, NO_COLOR: '1', CI: '1', PAYORCH_HOME: home, ...env } as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 180_000,
  });
}

const SH_LINE = /^(PAYORCH_BASE_URL|PAYORCH_API_KEY)='[^']*'; export \1;$/;

describe.concurrent('a CI job in one line', { timeout: 300_000 }, () => {
  it('eval "$(payorch server start --detach --port 0 --env)", a command on that server, `payorch server stop` in a trap', async () => {
    const dir = tempDir();
    const home = join(dir, 'home');
    const r = bash(
      `set -e
trap 'payorch server stop > stop.out 2> stop.err; echo $? > stop.code' EXIT
out=$(payorch server start --detach --port 0 --env 2> start.err)
printf '%s\\n' "$out" > start.out
eval "$out"
printf '%s\\n%s\\n' "$PAYORCH_BASE_URL" "$PAYORCH_API_KEY" > env.txt
payorch sessions create --amount 1234 --currency usd --description ci-job --json > created.json 2> created.err
id=$(node -p 'JSON.parse(require("fs").readFileSync("created.json", "utf8")).id')
# the session is on the server the environment names (not in an embedded one)
node -e 'fetch(process.env.PAYORCH_BASE_URL + "/sessions/" + process.argv[1], { headers: { authorization: "Bearer " + process.env.PAYORCH_API_KEY } }).then(async (r) => console.log(r.status, (await r.json()).description))' "$id" > got.txt
`,
      dir,
      home,
    );
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    expect(r.status, r.stderr + read('start.err')).toBe(0);

    // stdout of the start: the two assignments and nothing else; the banner (key masked) on stderr
    const lines = read('start.out').trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l).toMatch(SH_LINE);
    const [baseUrl, apiKey] = read('env.txt').trim().split('\n');
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/functions\/v1$/);
    expect(apiKey).toMatch(/^sk_test_[0-9A-Za-z]{20,}$/);
    expect(read('start.err')).toContain(baseUrl);
    expect(read('start.err')).not.toContain(apiKey);
    const pid = Number(/pid (\d+)/.exec(read('start.err'))?.[1]);
    pids.add(pid);

    expect(read('created.json')).toContain('"description": "ci-job"');
    expect(read('created.err')).not.toMatch(/embedded|no API key/);
    expect(read('got.txt').trim()).toBe('200 ci-job');

    // the trap stopped that server, exit 0, saying which
    expect(read('stop.code').trim()).toBe('0');
    expect(read('stop.out')).toContain(`Stopped the server (pid ${pid}) on ${baseUrl}`);
    expect(alive(pid)).toBe(false);
    await expect(fetch(`${baseUrl}/health`)).rejects.toThrow();
  });

  it('`server stop` with PAYORCH_BASE_URL stops that server only; when it is gone already, nothing', async () => {
    const home = tempDir();
    // A server on the default data directory (someone else's in this home), and the job's, in memory.
    const other = await runCli(['server', 'start', '--detach', '--port', '0', '--json'], { home });
    expect(other.code, other.stderr).toBe(0);
    const a = other.json<{ pid: number; base_url: string }>();
    pids.add(a.pid);
    const job = await runCli(['server', 'start', '--detach', '--port', '0', '--memory', '--env'], { home });
    expect(job.code, job.stderr).toBe(0);
    const env = Object.fromEntries(
      job.stdout
        .trim()
        .split('\n')
        .map((l) => /^(\w+)='([^']*)'/.exec(l)!.slice(1, 3)),
    );
    const pid = Number(/pid (\d+)/.exec(job.stderr)?.[1]);
    pids.add(pid);
    expect(env.PAYORCH_BASE_URL).not.toBe(a.base_url);

    const stop = await runCli(['server', 'stop'], { home, env });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`Stopped the server (pid ${pid}) on ${env.PAYORCH_BASE_URL}, in memory.`);
    expect(alive(pid)).toBe(false);
    expect(alive(a.pid)).toBe(true);

    // a trap running twice, or after the server died: the default directory's server is not taken instead
    const again = await runCli(['server', 'stop', '--json'], { home, env });
    expect(again.code).toBe(0);
    expect(again.json()).toEqual({ stopped: false, running: false, base_url: env.PAYORCH_BASE_URL });
    expect(alive(a.pid)).toBe(true);

    // --env: the lines that unset the two, the message on stderr
    const unset = await runCli(['server', 'stop', '--env'], { home });
    expect(unset.code).toBe(0);
    expect(unset.stdout).toBe('unset PAYORCH_BASE_URL;\nunset PAYORCH_API_KEY;\n');
    expect(unset.stderr).toContain(`Stopped the server (pid ${a.pid})`);
    expect(alive(a.pid)).toBe(false);
  });

  it('--env is refused with --json, without --detach, and --shell without --env (exit 2, nothing started)', async () => {
    const home = tempDir();
    const cases: [string[], RegExp][] = [
      [['--detach', '--env', '--json'], /--env .* --json/],
      [['--env'], /--env needs --detach/],
      [['--detach', '--shell', 'fish'], /--shell .* add --env/],
    ];
    for (const [flags, message] of cases) {
      const r = await runCli(['server', 'start', '--port', '0', '--memory', ...flags], { home });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      if (flags.includes('--json')) expect(r.json().error.code).toBe('usage_error');
      else expect(r.stdout).toBe('');
    }
    const status = await runCli(['server', 'status', '--json'], { home });
    expect(status.json().running).toBe(false);
    expect(status.json().others ?? []).toEqual([]);
  });

  it('the assignments survive any value in sh and bash; csh and fish forms quote alike', async () => {
    const { envAssignments, envUnsets } = await import('../../dist/lib/output/shell.js');
    const value = `it's $HOME \`id\` "q" ! \\ ; $(echo x) *`;
    for (const sh of ['sh', 'bash']) {
      const r = spawnSync(sh, ['-c', `eval "$1"; printf '%s' "$V"`, 'sh', envAssignments({ V: value }, 'sh')], {
        encoding: 'utf8',
      });
      expect(r.stdout).toBe(value);
      const exported = spawnSync(
        sh,
        ['-c', `eval "$1"; node -p 'process.env.V'`, 'sh', envAssignments({ V: 'x y' }, 'sh')],
        { encoding: 'utf8' },
      );
      expect(exported.stdout.trim()).toBe('x y');
    }
    expect(envAssignments({ V: "a'b!c" }, 'csh')).toBe(`setenv V 'a'\\''b'\\!'c';\n`);
    expect(envAssignments({ V: "a'b\\c" }, 'fish')).toBe(`set -gx V 'a\\'b\\\\c';\n`);
    expect(envUnsets(['A', 'B'], 'fish')).toBe('set -e A;\nset -e B;\n');
    expect(() => envAssignments({ V: 'a\nb' }, 'sh')).toThrow(/control character/);
    expect(() => envAssignments({ 'V; rm': 'x' }, 'sh')).toThrow(/variable name/);
  });
});
