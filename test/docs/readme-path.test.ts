// README "Quick start": the way to a bare `payorch` on the PATH runs as written in the clone (`npm link`), into a
// global prefix of the test's own (npm_config_prefix; offline, no scripts: nothing but the link is made), and the
// `payorch` it puts on the PATH is this clone's CLI, from any directory.
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { readmeSnippet } from '../helpers/readme.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('README "Quick start": payorch on the PATH', () => {
  it('`npm link` in the clone puts its `payorch` on the PATH; `payorch sessions list` then works anywhere', () => {
    const prefix = tempDir();
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PAYORCH_'))),
      PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
      PAYORCH_HOME: tempDir(),
      PAYORCH_DAEMON: '0',
      NO_COLOR: '1',
      npm_config_prefix: prefix,
      npm_config_offline: 'true',
      npm_config_ignore_scripts: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', readmeSnippet('on-path', 'sh')], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('No payment sessions.'); // `payorch sessions list` on a fresh data directory
    expect(realpathSync(join(prefix, 'bin', 'payorch'))).toBe(realpathSync(BIN));

    // from another directory, as a user would
    const elsewhere = spawnSync('bash', ['-c', 'command -v payorch && payorch sessions list --json'], {
      cwd: tempDir(),
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(elsewhere.status, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout.split('\n')[0]).toBe(join(prefix, 'bin', 'payorch'));
    expect(elsewhere.stdout).toContain('"object": "list"');
  });
});
