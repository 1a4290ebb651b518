// Directories that hold keys are created private (0700): $PAYORCH_HOME (profiles, written by `profiles add`)
// and a server's data directory (credentials.json, the database, the log).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';

const mode = (p: string) => statSync(p).mode & 0o777;
const started: TestServer[] = [];
afterAll(() => Promise.all(started.map((s) => s.close())));

describe('private directories', () => {
  it('profiles add creates $PAYORCH_HOME 0700 (and its parents)', async () => {
    const home = join(tempDir(), 'a', 'home');
    const r = await runCli(
      [
        'profiles',
        'add',
        'p',
        '--api-key',
        `sk_test_${'a'.repeat(24)}`,
        '--base-url',
        'http://127.0.0.1:1/functions/v1',
      ],
      { home },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(mode(home)).toBe(0o700);
    expect(mode(join(home, '..'))).toBe(0o700);
    expect(mode(join(home, 'config.json'))).toBe(0o600);
  });

  it('a server creates its data directory 0700', async () => {
    const dataDir = join(tempDir(), 'b', 'data');
    const s = await startTestServer({ dataDir });
    started.push(s);
    expect(mode(dataDir)).toBe(0o700);
  });
});
