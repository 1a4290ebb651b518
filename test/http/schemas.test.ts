// Every route's schemas are valid JSON Schema (the server's Ajv skips that check at run time, for start-up
// speed: http/validation.ts), and each compiles.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../../dist/lib/server/routes/index.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

describe('route schemas', () => {
  it('every body, query and params schema passes the JSON Schema meta-schema and compiles', () => {
    const ajv = new Ajv({ strict: false, validateSchema: true });
    addFormats(ajv);
    let checked = 0;
    for (const route of allRoutes) {
      for (const [part, schema] of Object.entries({ body: route.body, query: route.query, params: route.params })) {
        if (!schema) continue;
        const valid = ajv.validateSchema(schema as object);
        expect(valid, `${route.method} ${route.url} ${part}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
        expect(() => ajv.compile(schema as object), `${route.method} ${route.url} ${part}`).not.toThrow();
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
