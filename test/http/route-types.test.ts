// What a route handler may answer, by type: test/types/handlers.ts declares handlers that answer an object or a
// committed failure (Outcome), at once or with a promise (a handler awaits the store inside the request's
// transaction), which must compile, and one answering text under @ts-expect-error: if it compiled, the directive
// would be unused and tsc would fail. Likewise test/types/errors.ts: a `parameter_*` code given to
// errors.invalidRequest does not compile (one place decides an error's type, docs/api.md "Errors").
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('route handlers', () => {
  it(
    'an answer or Outcome compiles, at once or as a promise; a text answer does not, nor does a parameter_* invalid_request_error',
    { timeout: 60_000 },
    () => {
      const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
      const project = fileURLToPath(new URL('../types/tsconfig.json', import.meta.url));
      let output = '';
      try {
        execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
      } catch (err) {
        output = String((err as { stdout?: string }).stdout ?? err);
      }
      expect(output).toBe('');
    },
  );
});
