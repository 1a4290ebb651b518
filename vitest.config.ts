import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// `npm run test:soak` (= vitest run --dir test/soak) runs only the long variants; every other run leaves them out.
const soak = process.argv.some((a) => a.replace(/\/+$/, '').endsWith('test/soak'));

// Files that saturate the machine on purpose (a server under a write load) or whose verdict needs the CPU to itself
// (how soon a delivery arrives while 100 endpoints hang): they run one at a time, after the others.
const ALONE = ['test/webhooks/fairness.test.ts', 'test/reliability/reads.test.ts'];

// `npm run test:postgres` (PAYORCH_TEST_ENGINE=postgres): the files whose tests run a test-mode server through the
// test helpers (test/helpers/engine.ts puts it on PostgreSQL), not those that run none (the CLI's own, the
// documentation's) and not test/postgres, which picks its engines itself: they ran in `npm test` already.
const onPostgres = process.env.PAYORCH_TEST_ENGINE === 'postgres';
const SERVER = /\b(startTestServer|startChild)\(/;
const serverFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory())
      return path === join('test', 'postgres') || path === join('test', 'soak') ? [] : serverFiles(path);
    return e.name.endsWith('.test.ts') && SERVER.test(readFileSync(path, 'utf8')) ? [path] : [];
  });

// Files of the first group run at once: PAYORCH_TEST_WORKERS=N npm test tries another count.
const WORKERS = Number(process.env.PAYORCH_TEST_WORKERS) || 3;

const common = {
  // PAYORCH_TEST_ENGINE=postgres: one PostgreSQL cluster for the run (test/helpers/engine.ts).
  globalSetup: ['test/helpers/engine.ts'],
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: soak
    ? {
        ...common,
        include: ['**/*.test.ts'],
        exclude: ['node_modules/**'],
        reporters: ['default', './test/reporters/summary.ts'],
      }
    : {
        reporters: ['default', './test/reporters/summary.ts'],
        projects: [
          {
            test: {
              ...common,
              name: 'parallel',
              include: onPostgres ? serverFiles('test') : ['test/**/*.test.ts'],
              exclude: ['test/soak/**', 'node_modules/**', ...ALONE],
              // Most tests wait on child processes and sockets, not on the CPU: more files at once than the two
              // cores (measured: README "Development").
              maxWorkers: WORKERS,
              // Tests of a describe.concurrent at once (default 5): each starts the binary or a server, and with
              // three files running, five each meant up to 15 processes starting on two cores at a time.
              maxConcurrency: 2,
            },
          },
          {
            test: {
              ...common,
              name: 'alone',
              include: onPostgres ? ALONE.filter((f) => serverFiles('test').includes(f)) : ALONE,
              maxWorkers: 1,
              sequence: { groupOrder: 1 },
            },
          },
        ],
      },
});
