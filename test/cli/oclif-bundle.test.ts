// @oclif/core from its one-file bundle (scripts/bundle-oclif.js → dist/vendor, used by bin/run.js through
// src/lib/cli/oclif-bundle.ts): built for the installed version, the same exports, one copy shared by the
// binary and the commands, ES module commands still load, and the compile cache can cache it. Every CLI test
// runs the binary with it; here, what makes that true.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { version } = require('@oclif/core/package.json') as { version: string };
const OCLIF_BUNDLE = fileURLToPath(new URL('../../dist/lib/cli/oclif-bundle.js', import.meta.url));
const GET_COMMAND = fileURLToPath(new URL('../../dist/commands/sessions/get.js', import.meta.url));

/** Runs an ES module script in a fresh Node process; returns its stdout parsed as JSON. */
function inNode(script: string) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe('oclif bundle', () => {
  it('is built for the installed @oclif/core and leaves no import() call in it (so the compile cache takes it)', async () => {
    const { bundlePath } = (await import(OCLIF_BUNDLE)) as typeof import('../../src/lib/cli/oclif-bundle.js');
    const file = bundlePath(version);
    expect(existsSync(file)).toBe(true);
    const code = readFileSync(file, 'utf8');
    expect(code.startsWith('"use strict";\n')).toBe(true);
    expect(code).toContain(`@oclif/core ${version}`);
    expect(code.match(/\bimport\s*\((?!\s*\))/g)).toBeNull();
    expect(code).toContain('__payorchImport(');
  });

  it('stands in for @oclif/core: same exports, one copy for everyone, ES module commands load', () => {
    const out = inNode(`
      import { createRequire } from 'node:module';
      const require = createRequire(${JSON.stringify(OCLIF_BUNDLE)});
      const installed = Object.keys(require('@oclif/core')).sort();
      delete require.cache[require.resolve('@oclif/core')];
      const { useOclifBundle, bundlePath } = await import(${JSON.stringify(OCLIF_BUNDLE)});
      const used = useOclifBundle();
      const oclif = await import('@oclif/core');
      const Get = (await import(${JSON.stringify(GET_COMMAND)})).default;
      // What oclif's module loader does for an ES module command, through the bundle's import().
      const viaBundle = await globalThis[Symbol.for('payorch.import')](${JSON.stringify(new URL('../../dist/commands/sessions/get.js', import.meta.url).href)});
      console.log(JSON.stringify({
        used,
        sameObject: require('@oclif/core') === require(bundlePath(${JSON.stringify(version)})) && oclif.Command === require('@oclif/core').Command,
        exports: Object.keys(require('@oclif/core')).sort(),
        installed,
        commandExtendsIt: Get.prototype instanceof oclif.Command,
        sameCommand: viaBundle.default === Get,
        again: useOclifBundle(),
      }));
    `);
    expect(out.used).toBe(true);
    expect(out.sameObject).toBe(true);
    expect(out.exports).toEqual(out.installed);
    expect(out.commandExtendsIt).toBe(true);
    expect(out.sameCommand).toBe(true);
    expect(out.again).toBe(false); // already in place: nothing replaced twice
  });
});
