// Views of events, webhook endpoints, deliveries and the request log.
import type { Event } from '../../contract/events.js';
import type { RequestLogEntry } from '../../contract/requestlog.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from '../../contract/webhooks.js';
import { formatMoney, formatTime } from '../format.js';
import { maskSecret } from '../mask.js';
import { color, printable, statusText, type Column, type Field } from '../render.js';

/** The object's id; invoice.upcoming's invoice has none yet: `upcoming (sub_…)`, its subscription. */
const objectId = (e: Event): string => {
  const o = e.data.object as { id?: string; subscription?: unknown };
  return o.id ?? (typeof o.subscription === 'string' ? `upcoming (${o.subscription})` : '');
};
const objectKind = (e: Event) => e.data.object.object;

export const eventFields: Field<Event>[] = [
  { label: 'id', value: (e) => e.id },
  { label: 'type', value: (e) => e.type },
  { label: 'object', value: (e) => `${objectKind(e)} ${objectId(e)}` },
  { label: 'amount', value: (e) => (e.amount !== undefined && e.currency ? formatMoney(e.amount, e.currency) : '') },
  { label: 'session', value: (e) => e.session_id },
  { label: 'processor', value: (e) => e.psp },
  {
    label: 'changed',
    value: (e) =>
      Object.entries(e.data.previous_attributes ?? {})
        .map(([k, v]) => `${k} (was ${typeof v === 'object' ? JSON.stringify(v) : String(v)})`)
        .join(', '),
  },
  { label: 'created', value: (e) => formatTime(e.created) },
];

export const eventColumns: Column<Event>[] = [
  { header: 'ID', value: (e) => e.id },
  { header: 'TYPE', value: (e) => e.type },
  { header: 'OBJECT', value: objectId, optional: true },
  { header: 'CREATED', value: (e) => formatTime(e.created), optional: true },
];

/** `listen`'s line for an event: time, type, event id, object id — data escaped (printable). */
export function eventLine(e: Event): string {
  const c = color();
  const time = formatTime(e.created).replace(' UTC', '');
  return `${c.dim(printable(time))}  ${c.bold(printable(e.type))}  ${printable(e.id)}  ${c.dim(printable(objectId(e)))}`;
}

/** `listen`'s line for an event resent to it (`payorch events resend`): the event's line, marked. */
export function resentLine(e: Event): string {
  return `${eventLine(e)}  ${color().yellow('(resent)')}`;
}

/** With `listen --json` (stdout holds the event as the API shows it): the mark of a resend, on stderr. */
export function resentNote(e: Event): string {
  return `(resent) ${printable(e.id)} ${printable(e.type)}`;
}

/** `listen --forward-to`'s line for a forward: `  --> 200 POST http://…` (or the error). */
export function forwardLine(url: string, r: { status: number; ms: number } | { error: string; ms: number }): string {
  const c = color();
  if ('error' in r) return `  ${c.red('--> ERR')} POST ${printable(url)} ${c.red(printable(r.error))}`;
  const code = r.status >= 200 && r.status < 300 ? c.green(String(r.status)) : c.red(String(r.status));
  return `  --> ${code} POST ${printable(url)} ${c.dim(`(${r.ms} ms)`)}`;
}

export const webhookEndpointFields: Field<WebhookEndpoint>[] = [
  { label: 'id', value: (w) => w.id },
  { label: 'url', value: (w) => w.url },
  { label: 'events', value: (w) => w.enabled_events.join(', ') },
  { label: 'enabled', value: (w) => (w.enabled ? 'yes' : 'no') },
  { label: 'description', value: (w) => w.description },
  {
    label: 'metadata',
    value: (w) =>
      Object.entries(w.metadata ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(', '),
  },
  { label: 'created', value: (w) => formatTime(w.created) },
];

/** The endpoint with its signing secret in full (create, roll: the moments the secret is needed). */
export const webhookEndpointWithSecretFields: Field<WebhookEndpointWithSecret>[] = [
  ...webhookEndpointFields,
  { label: 'signing secret', value: (w) => w.secret },
];

export const webhookEndpointColumns: Column<WebhookEndpoint>[] = [
  { header: 'ID', value: (w) => w.id },
  { header: 'URL', value: (w) => w.url, shrink: true },
  { header: 'EVENTS', value: (w) => w.enabled_events.join(','), shrink: true },
  { header: 'ENABLED', value: (w) => (w.enabled ? 'yes' : 'no') },
  { header: 'CREATED', value: (w) => formatTime(w.created), optional: true },
];

export const maskedSecret = (s: string) => maskSecret(s);

/** A delivery's outcome so far, shared by both views of deliveries below. */
const deliveryOutcome: Column<WebhookDelivery>[] = [
  { header: 'STATUS', value: (d) => d.status, status: true },
  { header: 'ATTEMPTS', value: (d) => d.attempts },
  { header: 'LAST', value: (d) => d.last_response_code ?? d.last_error ?? '', shrink: true },
  { header: 'NEXT', value: (d) => formatTime(d.next_attempt_at), optional: true },
];

/**
 * One event's deliveries (`events deliveries`, `events resend`): a row per endpoint. The event is the one the
 * command names, so it has no column; the delivery's own id (no command takes it) is the first to leave a narrow
 * terminal. No id is ever cut.
 */
export const eventDeliveryColumns: Column<WebhookDelivery>[] = [
  { header: 'ENDPOINT', value: (d) => d.webhook_endpoint },
  ...deliveryOutcome,
  { header: 'DELIVERY', value: (d) => d.id, optional: true },
];

/** One endpoint's deliveries (`webhooks deliveries`): a row per event, its type shortened before any id is. */
export const endpointDeliveryColumns: Column<WebhookDelivery>[] = [
  { header: 'EVENT', value: (d) => d.event },
  { header: 'TYPE', value: (d) => d.event_type, shrink: true },
  ...deliveryOutcome,
  { header: 'DELIVERY', value: (d) => d.id, optional: true },
];

/** `logs tail`'s line: time, status, method, path, duration, request id. */
export function requestLogLine(r: RequestLogEntry): string {
  const c = color();
  const shown = r.status === 0 ? '---' : String(r.status);
  const status = r.status === 0 || r.status >= 500 ? c.red(shown) : r.status >= 400 ? c.yellow(shown) : c.green(shown);
  // An injected fault (docs/api.md "Fault injection") is marked on its line.
  const simulated = r.simulated === undefined ? '' : `  ${c.magenta(`SIMULATED ${printable(r.simulated)}`)}`;
  return `${c.dim(printable(formatTime(r.created_at).replace(' UTC', '')))}  ${status}  ${printable(r.method).padEnd(6)} ${printable(r.path)}  ${c.dim(`${r.duration_ms} ms  ${printable(r.request_id)}`)}${simulated}`;
}

export { statusText };
