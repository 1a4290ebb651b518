// Loads the in-process way in (src/lib/server/embedded.ts) for a command with no key configured and no server
// running: from its one-file bundle, dist/vendor/embedded.cjs (scripts/bundle-embedded.js), which the V8 code
// cache (compile-cache.ts) keeps compiled between runs, else — no bundle (a build without it), or
// PAYORCH_EMBEDDED_BUNDLE=0 — from the ES modules in dist/ as usual. The same code either way.
import { createRequire } from 'node:module';

type Embedded = typeof import('../server/embedded.js');

export async function loadEmbedded(env: NodeJS.ProcessEnv = process.env): Promise<Embedded> {
  if (env.PAYORCH_EMBEDDED_BUNDLE !== '0') {
    try {
      return createRequire(import.meta.url)('../../vendor/embedded.cjs') as Embedded;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    }
  }
  return import('../server/embedded.js');
}
