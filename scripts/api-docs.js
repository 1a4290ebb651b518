#!/usr/bin/env node
// Rewrites the marked sections of docs/api.md (the route reference, the public rate-limit bucket's routes) from the
// route declarations in dist/ (run `npm run build` first; `npm run docs` does both). `--check`: write nothing, exit
// 1 when docs/api.md differs from what it would write. test/docs/generated.test.ts runs the same check.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { regenerateApiDoc } = await import(join(root, 'dist/lib/server/routedocs.js'));
const { allRoutes } = await import(join(root, 'dist/lib/server/routes/index.js'));

const file = join(root, 'docs/api.md');
const committed = readFileSync(file, 'utf8');
const generated = regenerateApiDoc(committed, allRoutes);
if (process.argv.includes('--check')) {
  if (generated !== committed) {
    console.error('docs/api.md: the generated sections differ from the route declarations; run `npm run docs`.');
    process.exit(1);
  }
} else if (generated !== committed) {
  writeFileSync(file, generated);
  console.log('docs/api.md: generated sections rewritten');
}
