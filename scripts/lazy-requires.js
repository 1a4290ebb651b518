// An esbuild plugin for the CLI's bundle (scripts/bundle-cli.js): in the CommonJS packages it bundles (@oclif/core
// and what it loads), a module's top-level `const x = require('…')` loads the module on first use instead of at
// once. oclif's modules require one another at the top (the command class loads the whole config machinery,
// plugins, globbing, help templates, …: ~30 ms of evaluation), while a command that parses its flags and makes a
// request uses a small part of it.
//
// Only a declaration whose every use is a property read (`x.name`, as TypeScript's CommonJS output and most
// packages use their imports) is made lazy: each `x` becomes `x$lazy()`, a function that requires the module
// (esbuild's require of a bundled module returns its exports once it has run), wrapped as the declaration
// wrapped it (`__importDefault`, `__importStar`: their result is kept). A name declared twice in the file, used
// in any other way (called, assigned, passed along), or a require with side effects a module depends on being
// made early, is left as it is. `exports.X = require('…')` at the top becomes a getter that requires on first
// read.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ts = createRequire(join(root, 'package.json'))('typescript');

/** Packages (path segments after node_modules/) whose CommonJS modules are transformed. */
const PACKAGES = /[\\/]node_modules[\\/](@oclif[\\/]core)[\\/]/;

/** The source with its lazy-able top-level requires made lazy, and how many were. */
export function lazify(code, fileName = 'module.js') {
  const sf = ts.createSourceFile(fileName, code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  /** `require('x')`, `__importDefault(require('x'))`, `__importStar(require('x'))`: [wrapper or '', specifier]. */
  const requireCall = (e) => {
    if (!e || !ts.isCallExpression(e)) return undefined;
    if (ts.isIdentifier(e.expression) && e.expression.text === 'require') {
      const [a] = e.arguments;
      return e.arguments.length === 1 && a && ts.isStringLiteral(a) ? ['', a.text] : undefined;
    }
    if (
      ts.isIdentifier(e.expression) &&
      /^__import(Default|Star)$/.test(e.expression.text) &&
      e.arguments.length === 1
    ) {
      const inner = requireCall(e.arguments[0]);
      return inner && inner[0] === '' ? [e.expression.text, inner[1]] : undefined;
    }
    return undefined;
  };

  // Every identifier of the file by name: declarations and uses.
  const uses = new Map();
  const declared = new Map();
  (function visit(node) {
    if (ts.isIdentifier(node)) {
      const p = node.parent;
      const isName =
        (p && ts.isPropertyAccessExpression(p) && p.name === node) ||
        (p && ts.isPropertyAssignment(p) && p.name === node) ||
        (p &&
          (ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p)) &&
          p.name === node);
      if (!isName) {
        const isDecl =
          p &&
          (ts.isVariableDeclaration(p) ||
            ts.isParameter(p) ||
            ts.isFunctionDeclaration(p) ||
            ts.isFunctionExpression(p) ||
            ts.isClassDeclaration(p) ||
            ts.isClassExpression(p) ||
            ts.isBindingElement(p) ||
            ts.isImportSpecifier(p) ||
            ts.isCatchClause(p)) &&
          p.name === node;
        const m = isDecl ? declared : uses;
        if (!m.has(node.text)) m.set(node.text, []);
        m.get(node.text).push(node);
      }
    }
    ts.forEachChild(node, visit);
  })(sf);

  const edits = []; // [start, end, text]
  const helpers = [];
  let n = 0;
  for (const st of sf.statements) {
    // const x = require('…');
    if (ts.isVariableStatement(st) && st.declarationList.declarations.length === 1) {
      const d = st.declarationList.declarations[0];
      if (!ts.isIdentifier(d.name)) continue;
      const call = requireCall(d.initializer);
      if (!call) continue;
      const name = d.name.text;
      if ((declared.get(name) ?? []).length !== 1) continue;
      const refs = uses.get(name) ?? [];
      const allReads = refs.every((r) => {
        const p = r.parent;
        if (!ts.isPropertyAccessExpression(p) || p.expression !== r) return false;
        // not the target of an assignment (x.y = …, x.y++, delete x.y)
        const g = p.parent;
        if (
          ts.isBinaryExpression(g) &&
          g.left === p &&
          g.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
          g.operatorToken.kind <= ts.SyntaxKind.LastAssignment
        )
          return false;
        if (
          (ts.isPrefixUnaryExpression(g) || ts.isPostfixUnaryExpression(g)) &&
          [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(g.operator)
        )
          return false;
        if (ts.isDeleteExpression(g)) return false;
        return true;
      });
      if (refs.length === 0 || !allReads) continue;
      const [wrap, spec] = call;
      const fn = `${name}$lazy`;
      const load = `require(${JSON.stringify(spec)})`;
      // Plain requires are not kept: esbuild's require of a bundled module is a lookup, and a module in a cycle
      // may not have finished when first read. A wrapped one is kept once made (the wrapper copies bindings).
      helpers.push(
        wrap
          ? `var ${fn}$v; function ${fn}() { return ${fn}$v ??= ${wrap}(${load}); }`
          : `function ${fn}() { return ${load}; }`,
      );
      edits.push([st.getStart(sf), st.getEnd(), '']);
      for (const r of refs) edits.push([r.getStart(sf), r.getEnd(), `(${fn}())`]);
      n++;
      continue;
    }
    // exports.X = require('…');
    if (
      ts.isExpressionStatement(st) &&
      ts.isBinaryExpression(st.expression) &&
      st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(st.expression.left) &&
      ts.isIdentifier(st.expression.left.expression) &&
      st.expression.left.expression.text === 'exports'
    ) {
      const call = requireCall(st.expression.right);
      if (!call) continue;
      const key = st.expression.left.name.text;
      const [wrap, spec] = call;
      const value = wrap ? `${wrap}(require(${JSON.stringify(spec)}))` : `require(${JSON.stringify(spec)})`;
      edits.push([
        st.getStart(sf),
        st.getEnd(),
        `{ let v, done = false; Object.defineProperty(exports, ${JSON.stringify(key)}, { enumerable: true, configurable: true, get: () => (done ? v : ((done = true), (v = ${value}))), set: (x) => { done = true; v = x; } }); }`,
      ]);
      n++;
    }
  }
  if (n === 0) return { code, count: 0 };
  edits.sort((a, b) => b[0] - a[0]);
  let out = code;
  for (const [s, e, t] of edits) out = out.slice(0, s) + t + out.slice(e);
  // Function declarations are hoisted: the helpers can go at the end (a "use strict" directive stays first).
  return { code: `${out}\n${helpers.join('\n')}\n`, count: n };
}

export const lazyRequires = {
  name: 'lazy-requires',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!PACKAGES.test(args.path)) return undefined;
      const code = await readFile(args.path, 'utf8');
      if (/^\s*(import|export)\s/m.test(code)) return undefined; // an ES module: esbuild handles it
      return { contents: lazify(code, args.path).code, loader: 'js' };
    });
  },
};
