// Compiled by test/foundation/route-types.test.ts (tsc --noEmit), never run: a route handler is synchronous by type.
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

// A synchronous handler compiles, whether it answers an object or a committed failure.
export const ok = defineRoute({ ...base, handler: () => ({ id: 'x' }) });
export const failure = defineRoute({ ...base, handler: () => new Outcome(errors.internal()) });

// @ts-expect-error a handler that returns a Promise does not compile
export const asyncHandler = defineRoute({ ...base, handler: async () => ({ id: 'x' }) });

// nor does one returning any other thenable (the directive stands on the line the error is reported at)
export const thenable = defineRoute({
  ...base,
  // @ts-expect-error a thenable answer
  handler: () => ({ then: (resolve: (v: unknown) => void) => resolve(1) }),
});
