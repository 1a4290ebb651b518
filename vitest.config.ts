import { defineConfig } from 'vitest/config';

// `npm run test:soak` (= vitest run --dir test/soak) runs only the long variants; every other run leaves them out.
const soak = process.argv.some((a) => a.replace(/\/+$/, '').endsWith('test/soak'));

export default defineConfig({
  test: {
    include: soak ? ['**/*.test.ts'] : ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', './test/reporters/summary.ts'],
    // Long variants (soak, full fuzz) run with `npm run test:soak`.
    exclude: soak ? ['node_modules/**'] : ['test/soak/**', 'node_modules/**'],
  },
});
