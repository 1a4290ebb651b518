// The response half of the contract, for every end-to-end and fuzz test: a 2xx JSON body must match its route's
// response schema (the same TypeBox schema that /openapi.json publishes and the client's types come from).
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import FindMyWay from 'find-my-way';
import { API_PREFIX } from '../../dist/lib/contract/common.js';
import { allRoutes } from '../../dist/lib/server/routes/index.js';
import type { HttpMethod } from '../../dist/lib/contract/prefix.js';

const ajv = new Ajv({ strict: false, allErrors: true, addUsedSchema: false });
// ajv-formats is CommonJS: its function is the module itself and, under the name its types know, `default`.
addFormats.default(ajv);
const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
const validators = new Map<object, ValidateFunction>();
for (const spec of allRoutes) router.on(spec.method, API_PREFIX + spec.url, () => undefined, spec);

/**
 * Why the answer to `method path` (path under the API prefix, query allowed) does not match its route's
 * response schema; undefined when it does, or when there is nothing to check (not 2xx, not JSON, a page).
 */
export function responseViolation(method: string, path: string, status: number, text: string): string | undefined {
  if (status < 200 || status >= 300 || !text) return undefined;
  const found = router.find(method.toUpperCase() as HttpMethod, API_PREFIX + path.split('?')[0]!);
  const spec = found?.store as (typeof allRoutes)[number] | undefined;
  if (!spec) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${method} ${path}: ${status} answer is not JSON`;
  }
  let validate = validators.get(spec);
  if (!validate) {
    validate = ajv.compile(spec.response);
    validators.set(spec, validate);
  }
  if (validate(body)) return undefined;
  return `${method} ${path} (${spec.operationId}): ${status} body does not match the response schema: ${ajv.errorsText(validate.errors, { separator: '; ' })}`;
}
