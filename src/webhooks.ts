// payorch/webhooks: what a webhook receiver needs and nothing more (node:crypto only; no server, no client).
export {
  verifyWebhook,
  WebhookSignatureError,
  type WebhookSignatureErrorCode,
  type VerifyOptions,
  type WebhookHeaders,
} from './lib/webhooks/verify.js';
export {
  signatureHeader,
  computeSignature,
  parseSignatureHeader,
  standardSignatureHeader,
  computeStandardSignature,
  parseStandardSignatureHeader,
  webhookHeaders,
  STANDARD_ID_HEADER,
  STANDARD_TIMESTAMP_HEADER,
  STANDARD_SIGNATURE_HEADER,
  SIGNATURE_HEADER,
  EVENT_TYPE_HEADER,
  EVENT_ID_HEADER,
  TEST_MODE_HEADER,
} from './lib/webhooks/signature.js';
export type { Event, EventType } from './lib/contract/events.js';
