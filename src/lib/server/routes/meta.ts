import { Type } from '@sinclair/typebox';
import { AdvanceClockBody, ClockState, Health, MAX_CLOCK_ADVANCE_SECONDS } from '../../contract/meta.js';
import { EmptyQuery } from '../../contract/common.js';
import { defineRoute, InSteps } from '../http/route.js';
import { errors } from '../errors.js';
import { VERSION } from '../version.js';

/**
 * The meta routes; `openApi` builds the OpenAPI document of every route for a base URL (the composition passes it
 * in: this module does not import the list it is part of).
 */
export const metaRoutes = (openApi: (baseUrl: string) => object) => [
  defineRoute({
    method: 'GET',
    url: '/health',
    operationId: 'health',
    summary: 'Liveness: answers when the server can serve requests',
    tag: 'Meta',
    auth: 'none',
    limited: false,
    query: EmptyQuery,
    response: Health,
    handler: () => ({ status: 'ok', version: VERSION, livemode: false, time: new Date().toISOString() }),
  }),
  defineRoute({
    method: 'GET',
    url: '/openapi.json',
    operationId: 'openapi',
    summary: 'The OpenAPI 3.1 document of this server, generated from the route schemas',
    tag: 'Meta',
    auth: 'none',
    response: Type.Object({}, { additionalProperties: true, description: 'the OpenAPI 3.1 document' }),
    handler: ({ baseUrl }) => openApi(baseUrl),
  }),
  defineRoute({
    method: 'POST',
    url: '/test-helpers/advance-clock',
    operationId: 'advanceClock',
    summary: "Move the account's test clock forward and run everything that came due, in time order",
    tag: 'Test helpers',
    auth: 'api_key',
    body: AdvanceClockBody,
    response: ClockState,
    handler: ({ accountId, body, now, services }) => {
      if ((body.seconds === undefined) === (body.to === undefined)) {
        throw body.seconds === undefined
          ? errors.parameterMissing('seconds')
          : errors.parameterInvalid('to', 'give either seconds or to, not both');
      }
      const target =
        body.seconds !== undefined
          ? now + body.seconds * 1000
          : typeof body.to === 'number'
            ? body.to * 1000
            : Date.parse(body.to!);
      if (target < now) throw errors.parameterInvalid('to', 'the test clock only moves forward');
      if (target - now > MAX_CLOCK_ADVANCE_SECONDS * 1000)
        throw errors.parameterInvalid('to', 'the test clock moves at most 366 days per call');
      return new InSteps(
        (async function* () {
          const ran = yield* services.scheduler.advance(accountId, target);
          const t = services.clock.now(accountId);
          return { object: 'test_clock', now: Math.floor(t / 1000), now_iso: new Date(t).toISOString(), ran };
        })(),
      );
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/test-helpers/clock',
    operationId: 'getClock',
    summary: "The account's test clock",
    tag: 'Test helpers',
    auth: 'api_key',
    query: EmptyQuery,
    response: ClockState,
    handler: ({ accountId, services }) => {
      const t = services.clock.now(accountId);
      return { object: 'test_clock', now: Math.floor(t / 1000), now_iso: new Date(t).toISOString(), ran: [] };
    },
  }),
];
