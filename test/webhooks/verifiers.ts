// Every way a receiver verifies a delivery or a `listen` forward: the `standardwebhooks` npm package (Standard
// Webhooks' own library, which also checks the timestamp against the machine's clock, 5 minutes either way) and
// payorch's verifyWebhook with the whole headers, with Standard Webhooks' headers alone and with the
// X-Payorch-Signature value alone — each with its defaults. `verifications` says what each one answered.
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '../../dist/webhooks.js';

export type Verdicts = Record<string, string>;

/** Every verifier accepting, each returning the event whose id the headers carry. */
export const ALL_VERIFY: Verdicts = {
  standardwebhooks: 'ok',
  'verifyWebhook(headers)': 'ok',
  'verifyWebhook(webhook-*)': 'ok',
  'verifyWebhook(x-payorch-signature)': 'ok',
};

export function verifications(body: string, headers: IncomingHttpHeaders, secret: string): Verdicts {
  const id = String(headers['x-payorch-event-id']);
  const run = (f: () => unknown): string => {
    try {
      const event = f() as { id?: unknown };
      return event?.id === id && headers['webhook-id'] === id ? 'ok' : `another event: ${String(event?.id)}`;
    } catch (err) {
      return String((err as { code?: string }).code ?? (err as Error).message);
    }
  };
  const standard = Object.fromEntries(Object.entries(headers).filter(([k]) => k.startsWith('webhook-')));
  return {
    standardwebhooks: run(() => new Webhook(secret).verify(body, headers as Record<string, string>)),
    'verifyWebhook(headers)': run(() => verifyWebhook(body, headers, secret)),
    'verifyWebhook(webhook-*)': run(() => verifyWebhook(body, standard, secret)),
    'verifyWebhook(x-payorch-signature)': run(() => verifyWebhook(body, headers['x-payorch-signature'], secret)),
  };
}

/** Whether no verifier accepts (another secret, a changed body). */
export function noneVerify(body: string, headers: IncomingHttpHeaders, secret: string): boolean {
  return Object.values(verifications(body, headers, secret)).every((v) => v !== 'ok');
}
