// POST /test-helpers/trigger (docs/api.md "Test triggers"). The scenarios live in domain/triggers.ts.
import type { TSchema } from '@sinclair/typebox';
import { TriggerBody, TriggerResult } from '../../contract/triggers.js';
import { defineRoute, type RouteSpec } from '../http/route.js';
import { compileValidator, validationError } from '../http/validation.js';
import { ServiceError } from '../errors.js';
import { trigger, type BodyCheck } from '../domain/triggers.js';

const validators = new WeakMap<TSchema, ReturnType<typeof compileValidator>>();

/**
 * A scenario step's body, once edited, checked as the route that takes it checks a request's: the same 400,
 * its param named `step:param` as `--override` writes it.
 */
const checkStepBody: BodyCheck = (schema, body, step) => {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = compileValidator(schema, 'body')));
  if (validate(body)) return;
  const e = validationError(validate.errors ?? [], 'body');
  throw new ServiceError({
    status: e.status,
    type: e.type,
    code: e.code,
    message: `Step "${step}" of the scenario: ${e.message}`,
    param: `${step}:${e.param ?? ''}`,
  });
};

export const triggerRoutes: RouteSpec[] = [
  defineRoute({
    method: 'POST',
    url: '/test-helpers/trigger',
    operationId: 'triggerEvent',
    summary: 'Run the scenario that really produces an event type; answers every event it recorded',
    tag: 'Test helpers',
    auth: 'api_key',
    body: TriggerBody,
    response: TriggerResult,
    errors: [409],
    handler: ({ accountId, body, now, baseUrl, services }) =>
      trigger(services, accountId, body, now, baseUrl, checkStepBody),
  }),
];
