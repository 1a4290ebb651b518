// The README's "CI" section runs as written: its bash job (one-line server, fixtures, a snapshot restored before
// each suite, the trap that stops the server) in an application directory that has payorch installed, with the
// README's own fixture file as the seed; its GitHub Actions workflow runs that same script; and its vitest
// example gives every test the seeded state. The application's "tests" check what each suite starts from and
// then change it, so a restore that did not happen shows in the next suite.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readmeSnippet } from '../helpers/readme.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(repo, 'README.md'), 'utf8');

/** The README's fixture example (section "Fixtures"): the seed the job runs. */
function readmeFixture(): string {
  const section = readme.slice(readme.indexOf('## Fixtures'));
  return /```json\n([\s\S]*?)```/.exec(section)![1]!;
}

const tmp = mkdtempSync(join(tmpdir(), 'payorch-ci-job-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** An application directory with payorch installed (linked to this checkout's build) and the seed file. */
function app(): string {
  const dir = mkdtempSync(join(tmp, 'app-'));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  mkdirSync(join(dir, 'ci'));
  symlinkSync(repo, join(dir, 'node_modules', 'payorch'));
  symlinkSync(join('..', 'payorch', 'bin', 'run.js'), join(dir, 'node_modules', '.bin', 'payorch'));
  symlinkSync(join(repo, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'));
  writeFileSync(join(dir, 'ci', 'seed.json'), readmeFixture());
  return dir;
}

/** The environment of a CI runner: no terminal, no payorch configuration of the developer's. */
function ciEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    TMPDIR: join(dir, 'tmp'),
    CI: 'true',
    npm_config_offline: 'true',
  };
  mkdirSync(env.HOME!);
  mkdirSync(env.TMPDIR!);
  return env;
}

describe('README "CI"', () => {
  /** The README's job in a fresh application whose suites are `suite.mjs`: its run and each suite's record. */
  function runJob(failSuite?: string) {
    const dir = app();
    writeFileSync(join(dir, 'ci', 'payments-tests.sh'), readmeSnippet('ci-job', 'bash'));
    // The application's tests: each suite checks it starts from the seed (one customer, one subscription), then adds a
    // customer.
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module', scripts: { test: 'node suite.mjs' } }),
    );
    writeFileSync(
      join(dir, 'suite.mjs'),
      `import { appendFileSync } from 'node:fs';
const base = process.env.PAYORCH_BASE_URL, auth = { authorization: 'Bearer ' + process.env.PAYORCH_API_KEY };
const count = async (path) => (await (await fetch(base + path, { headers: auth })).json()).total_count;
const seen = { suite: process.argv[2], base, home: process.env.PAYORCH_HOME, customers: await count('/customers'), subscriptions: await count('/subscriptions') };
const made = await fetch(base + '/customers', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'suite@example.com' }) });
appendFileSync('suites.log', JSON.stringify({ ...seen, made: made.status }) + '\\n');
if (process.argv[2] === ${JSON.stringify(failSuite ?? null)}) process.exit(1);
`,
    );
    const env = ciEnv(dir);
    const run = spawnSync('bash', ['ci/payments-tests.sh'], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
    const suites = readFileSync(join(dir, 'suites.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { run, suites, tmp: env.TMPDIR! };
  }

  it('the bash job runs as written: each suite starts from the seeded state, the trap stops the server and removes its data', async () => {
    const { run, suites, tmp } = runJob();
    expect(run.status, run.stderr).toBe(0);
    expect(suites.map((s) => s.suite)).toEqual(['checkout', 'billing', 'refunds']);
    for (const s of suites) expect(s).toMatchObject({ customers: 1, subscriptions: 1, made: 201 });
    // the key never reached the job's output
    expect(run.stdout + run.stderr).not.toMatch(/sk_test_[A-Za-z0-9]{8,}/);
    // the trap stopped the server the job started
    const base = suites[0]!.base as string;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/functions\/v1$/);
    await expect(fetch(`${base}/health`)).rejects.toThrow();
    // …and removed the job's data directory, made under the runner's TMPDIR: nothing is left there
    expect(suites[0]!.home as string).toMatch(new RegExp(`^${tmp}/`));
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a job whose suite fails exits non-zero, and still stops its server and leaves nothing behind', async () => {
    const { run, suites, tmp } = runJob('billing');
    expect(run.status).not.toBe(0);
    expect(suites.map((s) => s.suite)).toEqual(['checkout', 'billing']);
    await expect(fetch(`${suites[0]!.base as string}/health`)).rejects.toThrow();
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('the GitHub Actions workflow installs and runs that same script', () => {
    const workflow = parse(readmeSnippet('ci-workflow', 'yaml')) as {
      jobs: Record<string, { steps: { run?: string; uses?: string }[] }>;
    };
    const steps = Object.values(workflow.jobs)[0]!.steps;
    expect(steps.map((s) => s.run ?? s.uses)).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      'npm ci',
      'bash ci/payments-tests.sh',
    ]);
    expect(readmeSnippet('ci-job', 'bash')).toMatch(/^#!\/usr\/bin\/env bash\n# ci\/payments-tests\.sh\n/);
  });

  it('the vitest example gives every test the seeded state', () => {
    const dir = app();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    writeFileSync(
      join(dir, 'payments.test.ts'),
      `${readmeSnippet('ci-vitest', 'ts')}
import { expect, it } from 'vitest';
import { Client } from 'payorch';
for (const name of ['first', 'second']) {
  it(name + ' test starts from the seed, then adds a customer', async () => {
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.baseUrl });
    expect((await client.customers.list()).total_count).toBe(1);
    await client.customers.create({ email: name + '@example.com' });
    expect((await client.customers.list()).total_count).toBe(2);
  });
}
`,
    );
    const run = spawnSync(
      process.execPath,
      [join(repo, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', dir, '--reporter', 'dot'],
      {
        cwd: dir,
        env: ciEnv(dir),
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/2 passed/);
  });
});
