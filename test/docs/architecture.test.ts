// ARCHITECTURE.md is the map a maintainer reads first: every file and folder it names must exist. A path with a
// folder is looked for from the repository's root and from src/, src/lib/, src/lib/server/, src/lib/output/ and
// test/ (the map's rooms name their files from there); a bare file name must be some file's name in the tree.
// `<area>`-style placeholders stand for any folder or file.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const map = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
const BASES = ['', 'src', 'src/lib', 'src/lib/server', 'src/lib/output', 'test'];
const TREES = ['src', 'test', 'bin', 'scripts', 'bench'];

/** Every file name under the project's own trees. */
function namesIn(dir: string, into = new Set<string>()): Set<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) namesIn(join(dir, entry.name), into);
    else into.add(entry.name);
  }
  return into;
}

/** The paths the map names: in `code` spans and in its fenced layer diagrams. */
function namedPaths(): string[] {
  const spans = [...map.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0]);
  const found = new Set<string>();
  for (const span of spans)
    for (const m of span.matchAll(
      /(?<![\w.@-])((?:[\w.<>-]+\/)*[\w<>-]+\.(?:ts|js|cjs|mjs|json)|(?:[\w.<>-]+\/)+)(?![\w/])/g,
    )) {
      const path = m[1]!;
      if (/^\.+\/?$/.test(path) || path.startsWith('-')) continue; // `./`, a flag's words
      found.add(path);
    }
  return [...found];
}

/** Whether `path` exists from `base`, a `<…>` part matching any entry. */
function existsFrom(base: string, path: string): boolean {
  const parts = path.split('/').filter(Boolean);
  const walk = (dir: string, i: number): boolean => {
    if (i === parts.length) return true;
    const part = parts[i]!;
    if (!part.includes('<')) return existsSync(join(dir, part)) && walk(join(dir, part), i + 1);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return false;
    const re = new RegExp(`^${part.replace(/[.]/g, '\\.').replace(/<[^>]+>/g, '[^/]+')}$`);
    return readdirSync(dir).some((e) => re.test(e) && walk(join(dir, e), i + 1));
  };
  return walk(join(root, base), 0);
}

describe('ARCHITECTURE.md', () => {
  const paths = namedPaths();
  const names = new Set<string>();
  for (const t of TREES) if (existsSync(join(root, t))) namesIn(join(root, t), names);

  it('names files and folders', () => {
    expect(paths.length).toBeGreaterThan(50);
  });

  it('names only files and folders that exist', () => {
    const missing = paths.filter((p) =>
      p.includes('/')
        ? !BASES.some((b) => existsFrom(b, p))
        : !p.includes('<') && !names.has(p) && !existsSync(join(root, p)),
    );
    expect(missing).toEqual([]);
  });
});
