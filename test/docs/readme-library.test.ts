// The README's library example of fixtures ("Fixtures", the block after its `readme-snippet: fixtures-library`
// marker) compiles as written — no cast — with strict TypeScript in an ES module application that depends on
// payorch, and runs there: the README's seed file, against a server started by the library, prints what it says.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../dist/index.js';
import { tempDir } from '../helpers/tmp.js';
import { readmeSnippet } from '../helpers/readme.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; out: string; stdout: string }>((resolve) => {
    execFile(cmd, args, { cwd, env, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, out: stdout + stderr, stdout });
    });
  });
}

describe('README "Fixtures": the library example', () => {
  it(
    'compiles as written (strict, no cast) and prints the seeded customer and subscription',
    { timeout: 180_000 },
    async () => {
      const code = readmeSnippet('fixtures-library', 'ts');
      // The README's seed file: the first JSON block of its "Fixtures" section.
      const fixtures = readme.slice(readme.indexOf('## Fixtures'));
      const seed = /```json\n([\s\S]*?)```/.exec(fixtures)![1]!;

      const app = tempDir();
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'module' }));
      mkdirSync(join(app, 'node_modules', '@types'), { recursive: true });
      symlinkSync(root, join(app, 'node_modules', 'payorch'), 'dir');
      symlinkSync(join(root, 'node_modules', '@types', 'node'), join(app, 'node_modules', '@types', 'node'), 'dir');
      writeFileSync(join(app, 'example.ts'), code);
      writeFileSync(join(app, 'seed.json'), seed);
      writeFileSync(
        join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, types: ['node'] },
          files: ['example.ts'],
        }),
      );
      const tsc = await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], app);
      expect(tsc.out).toBe('');
      expect(tsc.code).toBe(0);

      const server = await startServer({ port: 0, memory: true });
      try {
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          PAYORCH_API_KEY: server.apiKey,
          PAYORCH_BASE_URL: server.baseUrl,
        };
        delete env.CUSTOMER_EMAIL;
        const r = await run(process.execPath, ['example.js'], app, env);
        expect(r.out).toBe('ci@example.com active\n');
      } finally {
        await server.close();
      }
    },
  );
});
