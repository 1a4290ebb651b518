import { defineConfig } from 'vitest/config';

// `npm run test:soak` (= vitest run --dir test/soak) runs only the long variants; every other run leaves them out.
const soak = process.argv.some((a) => a.replace(/\/+$/, '').endsWith('test/soak'));

// Files that saturate the machine on purpose (a server under a write load) or whose verdict needs the CPU to itself
// (how soon a delivery arrives while 100 endpoints hang): they run one at a time, after the others.
const ALONE = ['test/webhooks/fairness.test.ts', 'test/reliability/reads.test.ts'];

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
              include: ['test/**/*.test.ts'],
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
              include: ALONE,
              maxWorkers: 1,
              sequence: { groupOrder: 1 },
            },
          },
        ],
      },
});
