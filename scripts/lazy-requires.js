// An esbuild plugin for the CLI's bundle (scripts/bundle-cli.js): in the CommonJS packages it bundles (@oclif/core
// and what it loads), a module's top-level `const x = require('…')` loads the module on first use instead of at
// once. oclif's modules require one another at the top (the command class loads the whole config machinery,
// plugins, globbing, help templates, …), while a command that parses its flags and makes a request uses a small
// part of it.
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
const { parse } = createRequire(join(root, 'package.json'))('acorn');

/** Packages (path segments after node_modules/) whose CommonJS modules are transformed. */
const PACKAGES = /[\\/]node_modules[\\/](@oclif[\\/]core)[\\/]/;

const isNode = (v) => v !== null && typeof v === 'object' && typeof v.type === 'string';

/**
 * Every identifier of a parsed script (ESTree, acorn), with its parent and the parent's key that holds it, and
 * whether it binds a name (a declaration: variable, parameter, function, class, catch clause, or inside their
 * destructuring patterns). Property names (`x.name`, `{ name: … }`, class members) and labels are left out.
 */
function identifiers(program) {
  const out = [];
  (function visit(node, parent, key, binding) {
    if (node.type === 'Identifier') {
      const name =
        (parent?.type === 'MemberExpression' && key === 'property' && !parent.computed) ||
        ((parent?.type === 'Property' ||
          parent?.type === 'MethodDefinition' ||
          parent?.type === 'PropertyDefinition') &&
          key === 'key' &&
          !parent.computed) ||
        ((parent?.type === 'LabeledStatement' ||
          parent?.type === 'BreakStatement' ||
          parent?.type === 'ContinueStatement') &&
          key === 'label');
      if (!name) out.push({ node, parent, key, binding });
      return;
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'type' || k === 'start' || k === 'end') continue;
      // Which children bind names: declarations' ids and parameters, and what patterns hold (not defaults).
      let b = binding;
      if (node.type === 'VariableDeclarator') b = k === 'id';
      else if (/Function/.test(node.type)) b = k === 'id' || k === 'params';
      else if (node.type === 'ClassDeclaration' || node.type === 'ClassExpression') b = k === 'id';
      else if (node.type === 'CatchClause') b = k === 'param';
      else if (node.type === 'AssignmentPattern') b = k === 'left' && binding;
      else if (node.type === 'Property') b = k === 'value' && binding;
      else if (node.type !== 'ObjectPattern' && node.type !== 'ArrayPattern' && node.type !== 'RestElement') b = false;
      if (Array.isArray(v)) {
        for (const c of v) if (isNode(c)) visit(c, node, k, b);
      } else if (isNode(v)) visit(v, node, k, b);
    }
  })(program, undefined, undefined, false);
  return out;
}

/** The parent of every node of `program` (a node's parent is the nearest node that holds it). */
function parents(program) {
  const map = new Map();
  (function visit(node) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'type') continue;
      for (const c of Array.isArray(v) ? v : [v])
        if (isNode(c)) {
          map.set(c, node);
          visit(c);
        }
    }
  })(program);
  return map;
}

const ASSIGNMENT = /^(=|\+=|-=|\*=|\/=|%=|\*\*=|<<=|>>=|>>>=|&=|\|=|\^=|&&=|\|\|=|\?\?=)$/;

/** The source with its lazy-able top-level requires made lazy, and how many were. */
export function lazify(code) {
  const program = parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true });
  /** `require('x')`, `__importDefault(require('x'))`, `__importStar(require('x'))`: [wrapper or '', specifier]. */
  const requireCall = (e) => {
    if (!e || e.type !== 'CallExpression' || e.callee.type !== 'Identifier') return undefined;
    if (e.callee.name === 'require') {
      const [a] = e.arguments;
      return e.arguments.length === 1 && a?.type === 'Literal' && typeof a.value === 'string'
        ? ['', a.value]
        : undefined;
    }
    if (/^__import(Default|Star)$/.test(e.callee.name) && e.arguments.length === 1) {
      const inner = requireCall(e.arguments[0]);
      return inner && inner[0] === '' ? [e.callee.name, inner[1]] : undefined;
    }
    return undefined;
  };

  // Every identifier of the file by name: declarations and uses.
  const uses = new Map();
  const declared = new Map();
  for (const id of identifiers(program)) {
    const m = id.binding ? declared : uses;
    if (!m.has(id.node.name)) m.set(id.node.name, []);
    m.get(id.node.name).push(id);
  }
  const parentOf = parents(program);

  const edits = []; // [start, end, text]
  const helpers = [];
  let n = 0;
  for (const st of program.body) {
    // const x = require('…');
    if (st.type === 'VariableDeclaration' && st.declarations.length === 1) {
      const d = st.declarations[0];
      if (d.id.type !== 'Identifier') continue;
      const call = requireCall(d.init);
      if (!call) continue;
      const name = d.id.name;
      if ((declared.get(name) ?? []).length !== 1) continue;
      const refs = uses.get(name) ?? [];
      const allReads = refs.every(({ node: r, parent: p, key }) => {
        if (p.type !== 'MemberExpression' || key !== 'object' || p.computed) return false;
        // not the target of an assignment (x.y = …, x.y++, delete x.y)
        const g = parentOf.get(p);
        if (g?.type === 'AssignmentExpression' && g.left === p && ASSIGNMENT.test(g.operator)) return false;
        if (g?.type === 'UpdateExpression' && g.argument === p) return false;
        if (g?.type === 'UnaryExpression' && g.operator === 'delete' && g.argument === p) return false;
        return r.name === name;
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
      edits.push([st.start, st.end, '']);
      for (const { node: r } of refs) edits.push([r.start, r.end, `(${fn}())`]);
      n++;
      continue;
    }
    // exports.X = require('…');
    const e = st.type === 'ExpressionStatement' ? st.expression : undefined;
    if (
      e?.type === 'AssignmentExpression' &&
      e.operator === '=' &&
      e.left.type === 'MemberExpression' &&
      !e.left.computed &&
      e.left.object.type === 'Identifier' &&
      e.left.object.name === 'exports' &&
      e.left.property.type === 'Identifier'
    ) {
      const call = requireCall(e.right);
      if (!call) continue;
      const key = e.left.property.name;
      const [wrap, spec] = call;
      const value = wrap ? `${wrap}(require(${JSON.stringify(spec)}))` : `require(${JSON.stringify(spec)})`;
      edits.push([
        st.start,
        st.end,
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
      return { contents: lazify(code).code, loader: 'js' };
    });
  },
};
