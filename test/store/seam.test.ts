// The store seam holds (ARCHITECTURE.md "The store seam"): SQL is written in the store's adapters and its migrations
// only, better-sqlite3 is imported by the SQLite adapter only, and only the composition roots pick an adapter.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

/** Where SQL may be written: the adapters (src/lib/server/adapters/) and the migrations (both dialects). */
const STORE_OWN = /^src\/lib\/server\/(adapters\/(sqlite|postgres)|store\/migrations)\//;
/** Where an adapter may be picked: the server's composition root and the data-directory commands (and their database). */
const PICKS_ENGINE =
  /^(src\/lib\/server\/(server|listening|shared-database|restore|directory)\.ts|src\/commands\/server\/)/;
/** An import of an adapter. */
const PICKS_ADAPTER = /from '[./]*(\/?[\w-]+\/)*adapters\/(sqlite|postgres)\//;

const SQL =
  /\b(SELECT\s+[\w*(]|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|(UNIQUE\s+)?INDEX)|PRAGMA\s+\w|VACUUM\s+INTO|json_extract\()/;

/** The file's code without its comments (a comment may name a statement; code may not hold one). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const files = sources(join(root, 'src'));

describe('the store seam', () => {
  it('finds the sources it checks (a moved tree fails here, not silently)', () => {
    expect(files).toContain('src/lib/server/domain/sessions.ts');
    expect(files).toContain('src/lib/server/adapters/sqlite/db.ts');
    expect(files.length).toBeGreaterThan(200);
  });

  it('no SQL outside the store adapters and migrations', () => {
    const offending = files
      .filter((f) => !STORE_OWN.test(f))
      .flatMap((f) => {
        const m = SQL.exec(code(readFileSync(join(root, f), 'utf8')));
        return m ? [`${f}: ${m[0]}`] : [];
      });
    expect(offending).toEqual([]);
  });

  it('better-sqlite3 is imported by the SQLite adapter only, and an adapter is picked by the composition roots only', () => {
    const offending = files.flatMap((f) => {
      const text = code(readFileSync(join(root, f), 'utf8'));
      const out: string[] = [];
      if (
        !f.startsWith('src/lib/server/adapters/sqlite/') &&
        /from 'better-sqlite3'|import\('better-sqlite3'\)/.test(text)
      )
        out.push(`${f}: better-sqlite3`);
      if (!STORE_OWN.test(f) && !PICKS_ENGINE.test(f) && PICKS_ADAPTER.test(text)) out.push(`${f}: an adapter`);
      return out;
    });
    expect(offending).toEqual([]);
  });

  it('the checks catch what they are for', () => {
    expect(SQL.test(code("const q = 'SELECT id FROM t WHERE x = ?';"))).toBe(true);
    expect(SQL.test(code('db.exec(`UPDATE accounts SET clock_offset_ms = ?`)'))).toBe(true);
    expect(SQL.test(code("x.prepare('INSERT OR IGNORE INTO accounts (id) VALUES (?)')"))).toBe(true);
    expect(SQL.test(code('// the SELECT above reads one row'))).toBe(false);
    expect(SQL.test(code('const url = "https://example.com"; // SELECT x FROM y'))).toBe(false);
    expect(PICKS_ADAPTER.test("import { postgresEngine } from '../server/adapters/postgres/engine.js';")).toBe(true);
    expect(PICKS_ADAPTER.test("import { describeUrl } from '../server/database-url.js';")).toBe(false);
  });
});
