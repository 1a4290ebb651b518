// Compiled by test/http/route-types.test.ts (tsc --noEmit), never run: one place decides an error's type
// (docs/api.md "Errors"). The `parameter_*` codes are validation errors, so errors.invalidRequest refuses them.
import { errors } from '../../src/lib/server/errors.js';

export const invalidRequest = errors.invalidRequest('currency_mismatch', 'x');
export const validation = errors.parameterInvalid('ending_before', 'cannot be used together with starting_after');

// @ts-expect-error a parameter_* code is not an invalid_request_error
export const mixed = errors.invalidRequest('parameter_invalid', 'x', 'ending_before');
