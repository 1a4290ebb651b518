// /openapi.json, generated from the route declarations (the same TypeBox schemas the server validates with).
import { ErrorBody } from '../contract/common.js';
import { boundedSchema } from '../contract/numbers.js';
import type { RouteSpec } from './http/route.js';
import { VERSION } from './version.js';
import { IDEMPOTENCY_KEY_LENGTH } from '../contract/limits.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request (validation_error or invalid_request_error)',
  401: 'Authentication failed',
  402: 'Card declined (card_error)',
  404: 'No such object',
  405: 'Method not allowed',
  409: 'Conflict with the current state',
  413: 'Body over 1 MiB',
  415: 'Body is not JSON',
  429: 'Rate limited',
  500: 'Internal error',
};

const AUTH_TEXT: Record<RouteSpec['auth'], string> = {
  api_key: 'Bearer: an API key (`sk_test_…`).',
  client_secret: "Bearer: the payment session's client secret (`cs_…`), so a browser can call it.",
  api_key_or_client_secret: "Bearer: an API key, or the payment session's client secret.",
  none: 'No authentication.',
};

/** What each tag groups (the document's top-level `tags`). */
const TAG_TEXT: Record<string, string> = {
  'Payment sessions':
    'A payment session: what is to be paid, by which methods, and its state until paid, failed or canceled.',
  Payments:
    'Confirming a session with a payment source, and the payments that result: capture, refund, session config.',
  '3D Secure': 'The 3DS challenge of a card payment that requires one.',
  Wallets: 'Merchant validation for wallet payment sheets.',
  'Test vault': 'The local test tokenization vault: card data in, token out.',
  'Test helpers': 'Test-mode controls: test values, processors up or down, the test clock.',
  'Bank accounts': 'ACH bank accounts and their micro-deposit verification.',
  'Network tokens': 'Network tokens of card tokens and their one-time cryptograms.',
  'Fault injection':
    'Test mode: server-wide fault rules (a status, a reset, a latency, a lost answer after commit) for matching requests or webhook deliveries.',
  Events: 'The event log: every change of a resource, as it committed. Webhook endpoints receive them signed.',
};

/**
 * An operation's description: the route's own, or one written from its facts (who may call it, what it
 * answers), so that every operation has one.
 */
function describeRoute(r: RouteSpec, errorStatuses: number[]): string {
  if (r.description) return `${r.description} ${AUTH_TEXT[r.auth]}`;
  const id = (r.response as { $id?: string }).$id;
  const success = `Answers ${r.status ?? 200}${id ? ` with the ${id} object` : ''}`;
  const failures = errorStatuses
    .filter((s) => s !== 500)
    .map((s) => `${s}`)
    .join(', ');
  return `${r.summary}. ${AUTH_TEXT[r.auth]} ${success}; failures (${failures}) carry the error body described in docs/api.md, "Errors".`;
}

/**
 * The error statuses a route can answer: 400 (every route validates its query, and its body and path where it has
 * them), 401 where it takes a credential, 429 and 500 everywhere, and the route's own (`errors`). One list for
 * /openapi.json and docs/api.md's route tables (routedocs.ts).
 */
export function errorStatuses(r: RouteSpec): number[] {
  return [...new Set([400, ...(r.auth === 'none' ? [] : [401]), 429, 500, ...(r.errors ?? [])])].sort((a, b) => a - b);
}

/** The `Idempotency-Key` header (docs/api.md "Idempotency"): the lengths the server checks (IdempotencyKeys.validateKey). */
export const IDEMPOTENCY_KEY_SCHEMA = {
  type: 'string',
  minLength: IDEMPOTENCY_KEY_LENGTH.min,
  maxLength: IDEMPOTENCY_KEY_LENGTH.max,
} as const;

/** JSON Schema copy without TypeBox's symbol keys and $id (inlined into the document); numbers with their range. */
const plain = (schema: unknown): unknown => boundedSchema(schema);

/** The last document built for each list of routes (a server serves one list, at one base URL). */
const cached = new WeakMap<RouteSpec[], { base: string; doc: object }>();

/** The OpenAPI document of `routes` (the caller passes them in: this module knows no routes of its own). */
export function openApiDocument(baseUrl: string, routes: RouteSpec[]): object {
  const hit = cached.get(routes);
  if (hit && hit.base === baseUrl) return hit.doc;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.url.replace(/:([a-z_]+)/g, '{$1}');
    const params: unknown[] = [];
    const p = r.params as { properties?: Record<string, unknown> } | undefined;
    for (const name of Object.keys(p?.properties ?? {}))
      params.push({ name, in: 'path', required: true, schema: plain(p!.properties![name]) });
    const q = r.query as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    for (const name of Object.keys(q?.properties ?? {})) {
      params.push({
        name,
        in: 'query',
        required: q?.required?.includes(name) ?? false,
        schema: plain(q!.properties![name]),
      });
    }
    if (r.method !== 'GET' && r.auth !== 'none') {
      params.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: IDEMPOTENCY_KEY_SCHEMA });
    }
    const responses: Record<string, unknown> = {
      [String(r.status ?? 200)]: {
        description: 'Success',
        content: { 'application/json': { schema: plain(r.response) } },
      },
    };
    const failures = errorStatuses(r);
    for (const s of failures) {
      responses[String(s)] = {
        description: STATUS_TEXT[s] ?? 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
      };
    }
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      description: describeRoute(r, failures),
      tags: [r.tag],
      security:
        r.auth === 'none'
          ? []
          : r.auth === 'client_secret'
            ? [{ clientSecret: [] }]
            : r.auth === 'api_key'
              ? [{ apiKey: [] }]
              : [{ apiKey: [] }, { clientSecret: [] }],
      parameters: params,
      ...(r.body
        ? { requestBody: { required: false, content: { 'application/json': { schema: plain(r.body) } } } }
        : {}),
      responses,
    };
  }
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'payorch test-mode payment orchestration API',
      version: VERSION,
      description: "The local test-mode server's API, generated from the schemas it validates with. See docs/api.md.",
    },
    servers: [{ url: baseUrl }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({
      name,
      description: TAG_TEXT[name] ?? `Operations on ${name.toLowerCase()}.`,
    })),
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'sk_test_ API key' },
        clientSecret: { type: 'http', scheme: 'bearer', description: "the payment session's client_secret (cs_...)" },
      },
      schemas: { ErrorBody: plain(ErrorBody) },
    },
    paths,
  };
  cached.set(routes, { base: baseUrl, doc });
  return doc;
}
