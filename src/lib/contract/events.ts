// Events (docs/api.md "Events and webhooks"): what changed, recorded in the same transaction as the change. The catalog
// (event-types.ts, free of TypeBox so the CLI loads it cheaply) is the one list of event types: the server records only
// these, `POST /test-helpers/trigger` accepts only these, and the CLI and docs list them from here.
import { Type, type Static } from '@sinclair/typebox';
import { ListOf, ListQuery, Nullable, UnixSecondsInput } from './common.js';

export {
  EVENT_TYPES,
  eventTypes,
  isEventType,
  eventTypeMatches,
  likelyEventType,
  type EventType,
} from './event-types.js';

/** An event type filter: a type, or a pattern with `*` standing for any characters (`payment.*`, `*.created`, `*`). */
export const EventTypePattern = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z_.*]+$',
  description: 'an event type, `*` matching any characters',
});

export const Event = Type.Object(
  {
    id: Type.String({ description: '`evt_…`' }),
    object: Type.Literal('event'),
    type: Type.String({ description: 'one of the event types (docs/api.md "Events and webhooks")' }),
    created: Type.Integer({ description: "Unix seconds on the account's clock" }),
    livemode: Type.Literal(false),
    data: Type.Object({
      object: Type.Object(
        {
          id: Type.Optional(
            Type.String({ description: 'absent only for invoice.upcoming: its invoice does not exist yet' }),
          ),
          object: Type.String(),
        },
        { additionalProperties: true, description: 'the object as the API shows it, after the change' },
      ),
      previous_attributes: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'top-level fields the change altered, with their values before it',
        }),
      ),
    }),
    // The live service's top-level fields of payment and refund events:
    session_id: Type.Optional(Nullable(Type.String())),
    transaction_id: Type.Optional(Type.String({ description: 'the payment id' })),
    amount: Type.Optional(Type.Integer()),
    currency: Type.Optional(Type.String()),
    psp: Type.Optional(Nullable(Type.String())),
    timestamp: Type.Optional(Type.String({ description: 'ISO 8601, the account clock' })),
    /** refund events: the refund */
    refund: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'Event' },
);
export type Event = Static<typeof Event>;

export const EventList = ListOf(Event);
export type EventList = Static<typeof EventList>;

export const EventIdParams = Type.Object({ event_id: Type.String({ minLength: 1, maxLength: 255 }) });

export const ListEventsQuery = Type.Object(
  {
    ...ListQuery,
    type: Type.Optional(EventTypePattern),
    object_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'events whose data.object has this id' }),
    ),
    created: Type.Optional(UnixSecondsInput),
    'created[gt]': Type.Optional(UnixSecondsInput),
    'created[gte]': Type.Optional(UnixSecondsInput),
    'created[lt]': Type.Optional(UnixSecondsInput),
    'created[lte]': Type.Optional(UnixSecondsInput),
  },
  { additionalProperties: false },
);
export type ListEventsQuery = Static<typeof ListEventsQuery>;

export { EVENT_RETENTION_MS } from './limits.js';
