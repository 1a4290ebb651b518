// POST /test-helpers/trigger (docs/api.md "Test triggers"): run the scenario that really produces an event type.
import { Type, type Static } from '@sinclair/typebox';
import { Currency } from './common.js';
import { Event } from './events.js';

const StepName = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'a step of the scenario, by name (`payorch trigger --list`: session, payment, customer …)',
});
const StepParam = Type.Object(
  {
    step: StepName,
    param: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "a param of the step's body: dotted or bracketed path (metadata.order, items[0][price])",
    }),
  },
  { additionalProperties: false },
);
const StepParamValue = Type.Object(
  { ...StepParam.properties, value: Type.Unknown({ description: 'any JSON value' }) },
  { additionalProperties: false },
);

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
    override: Type.Optional(
      Type.Array(StepParamValue, {
        maxItems: 50,
        description: "set a param of a named step's body, replacing what is there (`payorch trigger --override`)",
      }),
    ),
    add: Type.Optional(
      Type.Array(StepParamValue, {
        maxItems: 50,
        description: "set a param of a named step's body only where it has none (`--add`)",
      }),
    ),
    remove: Type.Optional(
      Type.Array(StepParam, { maxItems: 50, description: "drop a param of a named step's body (`--remove`)" }),
    ),
    skip: Type.Optional(
      Type.Array(StepName, {
        maxItems: 20,
        description:
          'named steps not to run: only one whose id a later step takes as a param, with that param given (`--skip`)',
      }),
    ),
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
    steps: Type.Array(Type.String(), {
      description: 'the named steps the scenario ran, in order: what override, add, remove and skip name',
    }),
  },
  { $id: 'TriggerResult' },
);
export type TriggerResult = Static<typeof TriggerResult>;
