// Webhook endpoints and deliveries (docs/api.md "Events and webhooks"): where the server POSTs each event, signed
// with the endpoint's secret, and the log of those POSTs.
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, HttpUrl, IdParam, ListOf, ListQuery, Metadata, Nullable } from './common.js';
import { EventTypePattern } from './events.js';
import { DAY_S } from './time.js';

/** At most this many endpoints per account (Stripe's limit too): each event is sent once per matching endpoint. */
export const MAX_WEBHOOK_ENDPOINTS = 16;
/** Attempts of one delivery before it is given up (`failed`): the live service's 5. */
export const MAX_DELIVERY_ATTEMPTS = 5;
/** The wait after attempt n (1-based) is RETRY_BASE_MS × 2^n: 2, 4, 8, 16 minutes (the live service's schedule). */
export const RETRY_BASE_MS = 60_000;
/** How long a rolled secret may keep signing too, at most (seconds). */
export const MAX_ROLL_EXPIRY_SECONDS = DAY_S;

const EnabledEvents = Type.Array(EventTypePattern, {
  minItems: 1,
  maxItems: 100,
  description: 'event types or `*` patterns (`payment.*`, `*.created`, `*`); an event is sent when one matches',
});

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ description: '`we_…`' }),
    object: Type.Literal('webhook_endpoint'),
    url: Type.String(),
    enabled_events: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    metadata: Type.Record(Type.String(), Type.String()),
    created: Type.Integer({ description: "Unix seconds on the account's clock" }),
    livemode: Type.Literal(false),
  },
  { $id: 'WebhookEndpoint' },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** The endpoint with its signing secret: the answer of create and roll-secret only. */
export const WebhookEndpointWithSecret = Type.Object(
  { ...WebhookEndpoint.properties, secret: Type.String({ description: '`whsec_…`: the signing secret' }) },
  { $id: 'WebhookEndpointWithSecret' },
);
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;

export const WebhookEndpointList = ListOf(WebhookEndpoint);

export const WebhookEndpointSecret = Type.Object(
  { object: Type.Literal('webhook_endpoint_secret'), webhook_endpoint: Type.String(), secret: Type.String() },
  { $id: 'WebhookEndpointSecret' },
);
export type WebhookEndpointSecret = Static<typeof WebhookEndpointSecret>;

const Description = Nullable(Type.String({ maxLength: 5000 }));

export const CreateWebhookEndpointBody = Type.Object(
  {
    url: HttpUrl,
    enabled_events: Type.Optional(EnabledEvents),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = Type.Object(
  {
    url: Type.Optional(HttpUrl),
    enabled_events: Type.Optional(EnabledEvents),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type UpdateWebhookEndpointBody = Static<typeof UpdateWebhookEndpointBody>;

export const RollWebhookSecretBody = Type.Object(
  {
    expires_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROLL_EXPIRY_SECONDS,
        description: 'how long the old secret still signs too (default 0: it stops at once)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RollWebhookSecretBody = Static<typeof RollWebhookSecretBody>;

export const WebhookEndpointIdParams = Type.Object({ webhook_endpoint_id: IdParam });
export const ListWebhookEndpointsQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export type ListWebhookEndpointsQuery = Static<typeof ListWebhookEndpointsQuery>;

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);
export type DeliveryStatus = Static<typeof DeliveryStatus>;

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: '`whd_…`' }),
    object: Type.Literal('webhook_delivery'),
    event: Type.String({ description: 'the event id' }),
    event_type: Type.String(),
    webhook_endpoint: Type.String(),
    url: Type.String({ description: "the endpoint's url when the delivery was made" }),
    status: DeliveryStatus,
    attempts: Type.Integer(),
    next_attempt_at: Nullable(DateTime),
    last_response_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    created_at: DateTime,
    delivered_at: Nullable(DateTime),
  },
  { $id: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookDeliveryList = ListOf(WebhookDelivery);
export type WebhookDeliveryList = Static<typeof WebhookDeliveryList>;

export const ListEventDeliveriesQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export type ListEventDeliveriesQuery = Static<typeof ListEventDeliveriesQuery>;
export const ListEndpointDeliveriesQuery = Type.Object(
  { ...ListQuery, status: Type.Optional(DeliveryStatus) },
  { additionalProperties: false },
);
export type ListEndpointDeliveriesQuery = Static<typeof ListEndpointDeliveriesQuery>;

export const ResendEventBody = Type.Object(
  {
    webhook_endpoint: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'only this endpoint (else every enabled endpoint the event matches)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ResendEventBody = Static<typeof ResendEventBody>;
