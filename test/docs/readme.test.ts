// The README's command table names commands and flags that exist (issue 30: it said `products get --expand
// prices` where the flag is `--expand-prices`). Checked against the oclif manifest the build writes, which is what
// the binary reads.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { EXIT } from '../../dist/lib/cli/errors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');
const manifest = JSON.parse(readFileSync(`${root}oclif.manifest.json`, 'utf8')) as {
  commands: Record<string, { flags: Record<string, unknown>; aliases?: string[] }>;
};

/** The rows of the table under "## Commands" (each row's cells, markdown's `\|` kept as `|`). */
function commandRows(): string[] {
  const section = readme.slice(
    readme.indexOf('## Commands'),
    readme.indexOf('\n## ', readme.indexOf('## Commands') + 1),
  );
  return section.split('\n').filter((l) => l.startsWith('| `payorch'));
}

describe("README's command table", () => {
  const rows = commandRows();

  it('is found', () => {
    expect(rows.length).toBeGreaterThan(30);
  });

  it('every command it names exists', () => {
    const ids = Object.keys(manifest.commands);
    const exists = (id: string) => manifest.commands[id] !== undefined || ids.some((c) => c.startsWith(`${id}:`));
    const missing: string[] = [];
    for (const row of rows) {
      // `payorch server keys create\|reveal` → server:keys:create, server:keys:reveal; words that are no command
      // (arguments such as `30d`, `ID`) end the walk.
      for (const m of row.replaceAll('\\|', '|').matchAll(/payorch ([a-z-]+)((?: [a-z-]+(?:\|[a-z-]+)*)*)/g)) {
        let named = [m[1]!];
        for (const word of m[2]!.trim().split(' ').filter(Boolean)) {
          const next = named.flatMap((id) => word.split('|').map((v) => `${id}:${v}`));
          if (!next.some(exists)) break;
          named = next;
        }
        for (const id of named) if (!exists(id) && id !== 'help') missing.push(`${id} (in: ${row.slice(0, 80)})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every flag in a row is a flag of a command of that row’s topics', () => {
    const wrong: string[] = [];
    for (const row of rows) {
      const topics = new Set([...row.matchAll(/payorch ([a-z-]+)/g)].map((m) => m[1]!));
      const flags = new Set<string>();
      for (const [id, c] of Object.entries(manifest.commands)) {
        if (topics.has(id.split(':')[0]!)) for (const f of Object.keys(c.flags)) flags.add(f);
      }
      for (const m of row.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)) {
        if (!flags.has(m[1]!)) wrong.push(`--${m[1]} (topics ${[...topics].join(', ')})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('README "Output and exit codes"', () => {
  it("says what --json prints when the failure is the CLI's own: usage_error and the other codes the API never sends", async () => {
    const section = readme
      .slice(
        readme.indexOf('## Output and exit codes'),
        readme.indexOf('\n## ', readme.indexOf('## Output and exit codes') + 1),
      )
      .replace(/\s+/g, ' ');
    const r = await runCli(['sessions', 'get', '--json']);
    expect(r.code).toBe(2);
    const body = r.json();
    expect(body.error.code).toBe('usage_error');
    expect(section).toContain('`usage_error`');
    expect(section).toMatch(/codes? the API never sends/);
    // and the API's own list of codes has none of them
    const apiDocs = readFileSync(`${root}docs/api.md`, 'utf8');
    for (const code of ['usage_error', 'configuration_error', 'connection_error']) {
      expect(section).toContain(`\`${code}\``);
      expect(apiDocs).not.toContain(code);
    }
  });

  it('its table has a row for every exit code the CLI uses (lib/cli/errors.ts EXIT), and no other', () => {
    const section = readme.slice(readme.indexOf('## Output and exit codes'), readme.indexOf('\n## Commands'));
    const rows = [...section.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(rows).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
  });
});
