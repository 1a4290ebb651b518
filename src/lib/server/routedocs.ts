// docs/api.md's route tables, generated from the route declarations — the same specs the server validates with and
// /openapi.json is made from — so that the document cannot drift from them. `scripts/api-docs.js` rewrites the
// marked sections of docs/api.md; test/docs/generated.test.ts fails when the committed document differs.
import type { RouteSpec } from './http/route.js';
import { errorStatuses, IDEMPOTENCY_KEY_SCHEMA } from './openapi.js';

const AUTH: Record<RouteSpec['auth'], string> = {
  api_key: 'API key',
  client_secret: 'client secret',
  api_key_or_client_secret: 'API key or client secret',
  none: 'none',
};

/** Statuses every route can answer (docs/api.md "Errors", "Rate limits"): said once above the tables, not per row. */
const EVERY_ROUTE = [429, 500];

type Json = Record<string, any>;

/** Markdown table cell text: `|` escaped, one line. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

const path = (r: RouteSpec) => r.url.replace(/:([a-z_]+)/g, '{$1}');

/** What a response schema is, in a few words: its `object` (`payment_session`, list of `payment`), else its fields. */
function answerName(schema: Json): string {
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map(answerName).join(' or ');
  const props: Json = schema.properties ?? {};
  const object = props.object?.const;
  if (object === 'list') return `list of ${answerName(props.data?.items ?? {})}`;
  if (props.deleted?.const === true) return `deleted \`${object}\``;
  if (typeof object === 'string') return `\`${object}\``;
  if (typeof schema.description === 'string') return schema.description;
  return `\`{${Object.keys(props).join(', ')}}\``;
}

/** A query parameter as the tables show it: name, whether required, an integer's range and the default. */
function queryParam(name: string, schema: Json, required: boolean): string {
  const parts = [`\`${name}\``];
  if (required) parts.push('(required)');
  const range =
    schema.minimum !== undefined && schema.maximum !== undefined
      ? `${fmt(schema.minimum)}–${fmt(schema.maximum)}`
      : undefined;
  if (range) parts.push(range);
  if (schema.default !== undefined) parts.push(`default ${fmt(schema.default)}`);
  return parts.length > 1 ? `${parts[0]} (${parts.slice(1).join(', ')})` : parts[0]!;
}

const fmt = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US') : JSON.stringify(v));

function queryParams(r: RouteSpec): string {
  const q = r.query as Json | undefined;
  const props: Json = q?.properties ?? {};
  return Object.entries(props)
    .map(([name, s]) => queryParam(name, s as Json, (q?.required ?? []).includes(name)))
    .join(', ');
}

/** One table per tag, in the order the tags first appear. */
export function routeTables(routes: RouteSpec[]): string {
  const tags = [...new Set(routes.map((r) => r.tag))];
  const key = IDEMPOTENCY_KEY_SCHEMA;
  const out = [
    `Every route below can also answer ${EVERY_ROUTE.join(' and ')} (see "Errors" and "Rate limits"), 503 when the data`,
    'directory cannot store a write, and 405, 408, 413 and 415 where they apply. Every route answers 400 to a query key or',
    `body field it does not take. POST, PATCH and DELETE routes that take a credential accept an \`Idempotency-Key\` of`,
    `${key.minLength}–${key.maxLength} characters (see "Idempotency"). A query parameter's range and default are given where it has them.`,
  ];
  for (const tag of tags) {
    out.push(
      '',
      `**${tag}**`,
      '',
      '| method | path | what | auth | success | errors | query |',
      '|---|---|---|---|---|---|---|',
    );
    for (const r of routes.filter((x) => x.tag === tag)) {
      const errors = errorStatuses(r).filter((s) => !EVERY_ROUTE.includes(s));
      out.push(
        `| ${r.method} | \`${path(r)}\` | ${cell(r.summary)} | ${AUTH[r.auth]} | ${r.status ?? 200} ${cell(answerName(r.response as Json))} | ${errors.join(', ')} | ${cell(queryParams(r))} |`,
      );
    }
  }
  return out.join('\n');
}

/** The routes that take no credential, which count in an address's public rate-limit bucket (docs/api.md "Rate limits"). */
export function publicRoutes(routes: RouteSpec[]): string {
  const open = routes.filter((r) => r.auth === 'none');
  const limited = open.filter((r) => r.limited !== false).map((r) => `\`${r.method} ${path(r)}\``);
  const unlimited = open.filter((r) => r.limited === false).map((r) => `\`${r.method} ${path(r)}\``);
  return [`${limited.join(', ')};`, `and ${unlimited.join(', ')}, which is never limited (below).`].join('\n');
}

const GENERATORS: Record<string, (routes: RouteSpec[]) => string> = {
  'route-tables': routeTables,
  'public-routes': publicRoutes,
};

/** A marked section: its markers, indented alike (inside a list item), and what is between them. */
const BLOCK =
  /^([ \t]*)(<!-- generated: ([a-z-]+) \(scripts\/api-docs\.js; do not edit\) -->)\n[\s\S]*?^\1(<!-- end generated: \3 -->)/gm;

/** `markdown` with every marked section rewritten from `routes`; throws on a marker it does not know. */
export function regenerateApiDoc(markdown: string, routes: RouteSpec[]): string {
  return markdown.replace(BLOCK, (_all, indent: string, open: string, name: string, close: string) => {
    const generate = GENERATORS[name];
    if (!generate) throw new Error(`docs/api.md: no generator for the marked section "${name}"`);
    const body = generate(routes)
      .split('\n')
      .map((l) => (l ? indent + l : l))
      .join('\n');
    return `${indent}${open}\n${body}\n${indent}${close}`;
  });
}

/** The names of the marked sections `markdown` holds. */
export function generatedSections(markdown: string): string[] {
  return [...markdown.matchAll(BLOCK)].map((m) => m[3]!);
}
