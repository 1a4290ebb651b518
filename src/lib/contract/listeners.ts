// Listeners (docs/api.md "Resends to listeners"): a running `payorch listen` holds a lease that it renews while it
// runs, and `POST /events/{id}/resend` queues the event for every listener of the account whose lease is live;
// each listener lists its own queue.
import { Type, type Static } from '@sinclair/typebox';
import { IdParam, ListOf, ListQuery } from './common.js';
import { Event, EventTypePattern } from './events.js';
import { WebhookDelivery } from './webhooks.js';

// The lease's times live in limits.ts, which the CLI loads without TypeBox.
export { LISTENER_FORGET_MS, LISTENER_LEASE_MS, LISTENER_RENEW_MS } from './limits.js';

export const EventListener = Type.Object(
  {
    id: Type.String({ description: '`evl_…`' }),
    object: Type.Literal('event_listener'),
    enabled_events: Type.Array(Type.String(), {
      description: 'the event types and patterns it shows: resends of other types are not queued for it',
    }),
    created: Type.Integer({ description: "Unix seconds on the account's clock" }),
    expires_at: Type.String({
      format: 'date-time',
      description:
        "when the lease runs out unless renewed: the server's wall clock (not the test clock), ISO 8601 UTC, milliseconds",
    }),
  },
  { $id: 'EventListener' },
);
export type EventListener = Static<typeof EventListener>;

export const EventResend = Type.Object(
  {
    id: Type.String({ description: '`evr_…`' }),
    object: Type.Literal('event_resend'),
    listener: Type.String({ description: 'the listener it was queued for (`evl_…`)' }),
    created: Type.Integer({ description: "when it was resent: Unix seconds on the account's clock" }),
    event: Event,
  },
  { $id: 'EventResend' },
);
export type EventResend = Static<typeof EventResend>;

export const EventResendList = ListOf(EventResend);
export type EventResendList = Static<typeof EventResendList>;

export const CreateEventListenerBody = Type.Object(
  {
    enabled_events: Type.Optional(
      Type.Array(EventTypePattern, {
        minItems: 1,
        maxItems: 100,
        description:
          'event types or `*` patterns the listener shows (`payorch listen --events`; default `["*"]`): a resend of another type is not queued for it',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateEventListenerBody = Static<typeof CreateEventListenerBody>;

export const EventListenerIdParams = Type.Object({ listener_id: IdParam });
export const ListEventResendsQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export type ListEventResendsQuery = Static<typeof ListEventResendsQuery>;

/**
 * `POST /events/{id}/resend`'s answer: the list of new deliveries, as before, and how many running listeners the
 * event was queued for (0 when a webhook endpoint is named).
 */
export const ResendEventResult = Type.Object(
  {
    ...ListOf(WebhookDelivery).properties,
    listeners: Type.Integer({
      minimum: 0,
      description: 'running listeners (`payorch listen`) the event was queued for; 0 when webhook_endpoint is given',
    }),
  },
  { $id: 'ResendEventResult' },
);
export type ResendEventResult = Static<typeof ResendEventResult>;

/** Resends are kept as long as events: 30 days on the account's clock. */
export { EVENT_RETENTION_MS as RESEND_RETENTION_MS } from './events.js';
