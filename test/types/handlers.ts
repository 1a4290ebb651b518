// Compiled by test/http/route-types.test.ts (tsc --noEmit), never run: what a route handler may answer.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../src/lib/server/http/route.js';
import { Outcome } from '../../src/lib/server/domain/outcome.js';
import { errors } from '../../src/lib/server/errors.js';

const base = {
  method: 'POST',
  url: '/x',
  operationId: 'x',
  summary: 'x',
  tag: 'x',
  auth: 'api_key',
  response: Type.Object({}),
} as const;

// A handler answers an object or a committed failure, at once or once the store answered (it runs to its end inside
// the request's transaction).
export const ok = defineRoute({ ...base, handler: () => ({ id: 'x' }) });
export const failure = defineRoute({ ...base, handler: () => new Outcome(errors.internal()) });
export const asyncHandler = defineRoute({ ...base, handler: async () => ({ id: 'x' }) });
export const asyncFailure = defineRoute({ ...base, handler: async () => new Outcome(errors.internal()) });

// An answer that is no object is not one (the directive stands on the line the error is reported at).
export const text = defineRoute({
  ...base,
  // @ts-expect-error a text answer
  handler: () => 'x',
});
