// docs/api.md says what the server does (issue 30, "the docs drift"): each claim below is read from the document and
// checked against a real server over HTTP.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const docs = readFileSync(fileURLToPath(new URL('../../docs/api.md', import.meta.url)), 'utf8');

/** The text of a `## `/`### ` section, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = docs.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const level = heading.indexOf(' ');
  const rest = docs.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  return end < 0 ? rest : rest.slice(0, end);
}

/** A markdown table's rows as cells (`\|` inside a cell kept). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
    .map((l) => l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
}

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());

describe('"Live-service parity"', () => {
  it('every row on browsers from other origins (CORS) says what the server does: 204 preflights, any origin', async () => {
    const preflight = await fetch(`${s.baseUrl}/confirm-payment`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const rows = tableRows(section('## Live-service parity')).filter((r) => /CORS|another origin/i.test(r[0]!));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row[2], row[0]).not.toMatch(/not answered|not allowed/i);
      expect(row[2], row[0]).toContain('Access-Control-Allow-Origin: *');
      expect(row[2], row[0]).toContain('204');
    }
  });
});
