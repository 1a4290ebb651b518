// POST /test-helpers/trigger (docs/api.md "Test triggers"): run the scenario that really produces an event type.
import { Type, type Static } from '@sinclair/typebox';
import { Currency } from './common.js';
import { Event } from './events.js';

export const TriggerBody = Type.Object(
  {
    event_type: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'one of the event types (docs/api.md "Event types")',
    }),
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 99_999_999,
        description: 'the amount of the payment, price or invoice the scenario makes (default 2000)',
      }),
    ),
    currency: Type.Optional(Currency),
  },
  { additionalProperties: false },
);
export type TriggerBody = Static<typeof TriggerBody>;

export const TriggerResult = Type.Object(
  {
    object: Type.Literal('trigger'),
    event_type: Type.String(),
    events: Type.Array(Event, { description: 'every event the scenario recorded, in order' }),
    objects: Type.Record(Type.String(), Type.String(), {
      description: 'the ids of what the scenario made, by kind (payment_session, payment, customer …)',
    }),
  },
  { $id: 'TriggerResult' },
);
export type TriggerResult = Static<typeof TriggerResult>;
