// What the build steps share from the toolchain: where the TypeScript compiler is, and where a bundle calls import().
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

/**
 * The TypeScript compiler's command line (TypeScript 7: a script that runs the native compiler). Its package
 * exports no `bin/tsc` subpath, so the file is found beside its package.json. Throws when TypeScript is not installed.
 */
export function tscPath() {
  return join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
}

/**
 * Every dynamic import() expression in a script's code, found by parsing it (not by matching text): where its
 * `import` keyword starts and ends, and its text. TypeScript 7 has no JavaScript API to parse with;
 * acorn parses the bundles, which are plain JavaScript (importExpressions, below).
 */
export function dynamicImports(code) {
  return importExpressions(code).map((e) => ({
    start: e.start,
    end: e.start + 'import'.length,
    text: code.slice(e.start, e.end),
  }));
}

/**
 * Every dynamic import() expression in a script's code, whole: where it starts and ends, its specifier when it is
 * a string literal, and the text of its arguments.
 */
export function importExpressions(code) {
  const { parse } = require('acorn');
  const { simple } = require('acorn-walk');
  const found = [];
  simple(parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true }), {
    ImportExpression(node) {
      const src = node.source;
      found.push({
        start: node.start,
        end: node.end,
        specifier: src.type === 'Literal' && typeof src.value === 'string' ? src.value : undefined,
        args: code.slice(src.start, (node.options ?? src).end),
      });
    },
  });
  return found;
}

/** Where each string and regular expression literal of a script's code starts and ends ([start, end) pairs). */
export function literalRanges(code) {
  const { parse } = require('acorn');
  const { simple } = require('acorn-walk');
  const found = [];
  simple(parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true }), {
    Literal(node) {
      if (typeof node.value === 'string' || node.regex) found.push([node.start, node.end]);
    },
  });
  return found;
}
