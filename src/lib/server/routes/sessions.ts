import {
  CancelSessionBody,
  CreateSessionBody,
  ListSessionsQuery,
  PaymentSession,
  SessionIdParams,
  SessionList,
  UpdateSessionBody,
} from '../../contract/sessions.js';
import { defineRoute, savedAsEvent, type SavedWithoutSecret } from '../http/route.js';

const tag = 'Payment sessions';

/** A session's only secret is its client secret, which the session id gives back (Sessions.clientSecret). */
const withoutClientSecret: SavedWithoutSecret = {
  strip: (response, json) => {
    // The secret is the object's last member (Sessions.toApi): cut it off the text sent rather than serialise
    // a copy; any other shape is serialised without it.
    const session = response as PaymentSession;
    const last = `,"client_secret":${JSON.stringify(session.client_secret)}}`;
    return json.endsWith(last)
      ? `${json.slice(0, -last.length)}}`
      : JSON.stringify({ ...session, client_secret: undefined });
  },
  restore: async (saved, { accountId, services }) => {
    const session = saved as PaymentSession;
    return { ...session, client_secret: await services.sessions.clientSecret(accountId, session.id) };
  },
};

/** Create answers the object of the session's `payment_session.created` event, with the secret. */
const asCreatedEvent = savedAsEvent(
  ({ accountId, services }, id) => services.sessions.get(accountId, id),
  withoutClientSecret,
);

export const sessionRoutes = [
  defineRoute({
    method: 'POST',
    url: '/create-session',
    operationId: 'createSession',
    summary: 'Create a payment session',
    tag,
    auth: 'api_key',
    body: CreateSessionBody,
    response: PaymentSession,
    status: 201,
    saved: asCreatedEvent,
    handler: ({ accountId, body, now, baseUrl, services }) => services.sessions.create(accountId, body, now, baseUrl),
  }),
  defineRoute({
    method: 'GET',
    url: '/sessions',
    operationId: 'listSessions',
    summary: 'List payment sessions, newest first',
    tag,
    auth: 'api_key',
    query: ListSessionsQuery,
    response: SessionList,
    handler: ({ accountId, query, path, services }) => services.sessions.list(accountId, path, query),
  }),
  defineRoute({
    method: 'GET',
    url: '/sessions/:session_id',
    operationId: 'getSession',
    summary: 'Retrieve a payment session',
    description:
      "As at the live service, a browser may retrieve its session with the session's client secret (which the object " +
      'carries anyway); updating and canceling need the API key.',
    tag,
    auth: 'api_key_or_client_secret',
    params: SessionIdParams,
    response: PaymentSession,
    errors: [404],
    handler: ({ accountId, params, services }) => services.sessions.get(accountId, params.session_id),
  }),
  defineRoute({
    method: 'PATCH',
    url: '/sessions/:session_id',
    operationId: 'updateSession',
    summary: 'Update a payment session (only while requires_payment_method)',
    tag,
    auth: 'api_key',
    params: SessionIdParams,
    body: UpdateSessionBody,
    response: PaymentSession,
    saved: withoutClientSecret,
    errors: [404, 409],
    handler: ({ accountId, params, body, now, services }) =>
      services.sessions.update(accountId, params.session_id, body, now),
  }),
  defineRoute({
    method: 'POST',
    url: '/sessions/:session_id/cancel',
    operationId: 'cancelSession',
    summary: 'Cancel a payment session',
    tag,
    auth: 'api_key',
    params: SessionIdParams,
    body: CancelSessionBody,
    response: PaymentSession,
    saved: withoutClientSecret,
    errors: [404, 409],
    handler: ({ accountId, params, body, now, services }) =>
      services.sessions.cancel(accountId, params.session_id, body, now),
  }),
];
