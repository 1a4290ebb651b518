// /openapi.json, generated from the route declarations (the same TypeBox schemas the server validates with).
import { ErrorBody } from '../contract/common.js';
import { boundedSchema } from '../contract/numbers.js';
import type { RouteSpec } from './http/route.js';
import { VERSION } from './version.js';
// A cycle (routes → meta → openapi → routes) that is safe: allRoutes is only read when the document is built.
import { allRoutes } from './routes/index.js';

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

/** JSON Schema copy without TypeBox's symbol keys and $id (inlined into the document); numbers with their range. */
const plain = (schema: unknown): unknown => boundedSchema(schema);

let cached: { base: string; doc: object } | undefined;

export function openApiDocument(baseUrl: string, routes?: RouteSpec[]): object {
  if (cached && cached.base === baseUrl && !routes) return cached.doc;
  const list = routes ?? allRoutes;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of list) {
    const path = r.url.replace(/:([a-z_]+)/g, '{$1}');
    const params: unknown[] = [];
    const p = r.params as { properties?: Record<string, unknown> } | undefined;
    for (const name of Object.keys(p?.properties ?? {})) params.push({ name, in: 'path', required: true, schema: plain(p!.properties![name]) });
    const q = r.query as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    for (const name of Object.keys(q?.properties ?? {})) {
      params.push({ name, in: 'query', required: q?.required?.includes(name) ?? false, schema: plain(q!.properties![name]) });
    }
    if (r.method !== 'GET' && r.auth !== 'none') {
      params.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } });
    }
    const responses: Record<string, unknown> = {
      [String(r.status ?? 200)]: { description: 'Success', content: { 'application/json': { schema: plain(r.response) } } },
    };
    const errorStatuses = new Set([400, ...(r.auth === 'none' ? [] : [401]), 429, 500, ...(r.errors ?? [])]);
    for (const s of [...errorStatuses].sort()) {
      responses[String(s)] = { description: STATUS_TEXT[s] ?? 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };
    }
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.tag],
      security: r.auth === 'none' ? [] : r.auth === 'client_secret' ? [{ clientSecret: [] }] : r.auth === 'api_key' ? [{ apiKey: [] }] : [{ apiKey: [] }, { clientSecret: [] }],
      parameters: params,
      ...(r.body ? { requestBody: { required: false, content: { 'application/json': { schema: plain(r.body) } } } } : {}),
      responses,
    };
  }
  const doc = {
    openapi: '3.1.0',
    info: { title: 'payorch test-mode payment orchestration API', version: VERSION, description: 'Contract: service-interface.md 1.0.0 + contract.md. See docs/api.md.' },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'sk_test_ API key' },
        clientSecret: { type: 'http', scheme: 'bearer', description: "the payment session's client_secret (cs_...)" },
      },
      schemas: { ErrorBody: plain(ErrorBody) },
    },
    paths,
  };
  if (!routes) cached = { base: baseUrl, doc };
  return doc;
}
