// Fault injection (docs/api.md "Fault injection"), test mode only: the grammar of a fault — what the
// `Payorch-Simulate` request header carries and what a server-wide rule injects — parsed here and nowhere else,
// and the shapes of the rules' API.
//
//   fault     = item *( ";" item )            ; items in any order, each at most once, spaces around them allowed
//   item      = "status=" 3DIGIT               ; answer this status instead of running the request
//             / "retry_after=" 1*DIGIT         ; with a status: its Retry-After, in seconds
//             / "latency=" 1*DIGIT ("ms"/"s")  ; wait this long first (at most 30 s)
//             / "reset"                        ; close the connection without an answer, instead of running
//             / "after_commit=" ("reset" / "status=" 3DIGIT)  ; run it, commit, then lose or replace the answer
//             / "drop"                         ; webhook deliveries only: the POST is never sent
import { Type, type Static } from '@sinclair/typebox';
import { HTTP_METHODS } from './prefix.js';

export { SIMULATE_HEADER, SIMULATE_HEADER_LC, SIMULATED_HEADER } from './simulate.js';

/** The longest latency a fault may ask for (ms). */
export const MAX_FAULT_LATENCY_MS = 30_000;
/** The largest Retry-After a simulated status may carry (s). */
export const MAX_FAULT_RETRY_AFTER_S = 3600;
/** The longest fault text. */
export const MAX_FAULT_LENGTH = 200;

/**
 * The statuses a request fault may answer: the ones a client must be ready to retry, each with the body this server
 * gives it (errors.ts `simulated`).
 */
export const SIMULATED_STATUSES = [408, 409, 429, 500, 502, 503, 504] as const;

/** What a fault does: answer a status, close the connection without an answer, or (webhooks) not send at all. */
export type FaultAction =
  | { kind: 'status'; status: number; retryAfter?: number }
  | { kind: 'reset' }
  | { kind: 'drop' };

export interface Fault {
  /** Waited before anything else (ms). */
  latencyMs?: number;
  /** Instead of running the request (or, for a webhook delivery: see docs/api.md). */
  before?: FaultAction;
  /** Once the request has run and its work (and idempotency record) is committed: its answer replaced or lost. */
  afterCommit?: FaultAction;
  /** The fault written out in one canonical form (what logs and lists show). */
  text: string;
}

/** What a fault applies to: an API request, or a webhook delivery attempt. */
export type FaultTarget = 'request' | 'webhook';

export class FaultSyntaxError extends Error {
  override name = 'FaultSyntaxError';
}

const STATUS = /^[1-5]\d{2}$/;

function statusOf(value: string, target: FaultTarget): number {
  if (!STATUS.test(value)) throw new FaultSyntaxError(`status takes a three-digit HTTP status, got "${value}"`);
  const status = Number(value);
  if (target === 'request' && !(SIMULATED_STATUSES as readonly number[]).includes(status)) {
    throw new FaultSyntaxError(
      `status must be one of ${SIMULATED_STATUSES.join(', ')} (the statuses a client retries), got ${status}`,
    );
  }
  if (target === 'webhook' && status < 400)
    throw new FaultSyntaxError(`status must be 400 to 599 (a receiver's failure), got ${status}`);
  return status;
}

/** Parses a fault; throws FaultSyntaxError saying what is wrong (the caller answers it as a 400). */
export function parseFault(input: string, target: FaultTarget): Fault {
  if (input.length > MAX_FAULT_LENGTH) throw new FaultSyntaxError(`at most ${MAX_FAULT_LENGTH} characters`);
  const seen = new Set<string>();
  const fault: Omit<Fault, 'text'> = {};
  let retryAfter: number | undefined;
  const items = input.split(';').map((s) => s.trim());
  if (items.every((s) => s === ''))
    throw new FaultSyntaxError('empty: give e.g. status=503, latency=1500ms, reset or after_commit=reset');
  for (const item of items) {
    if (item === '') throw new FaultSyntaxError('an empty item between two ";"');
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? undefined : item.slice(eq + 1);
    if (seen.has(name)) throw new FaultSyntaxError(`${name} is given twice`);
    seen.add(name);
    const flag = (action: FaultAction) => {
      if (value !== undefined) throw new FaultSyntaxError(`${name} takes no value`);
      return action;
    };
    switch (name) {
      case 'status':
        fault.before = { kind: 'status', status: statusOf(value ?? '', target) };
        break;
      case 'retry_after':
        if (!/^\d{1,5}$/.test(value ?? '') || Number(value) > MAX_FAULT_RETRY_AFTER_S)
          throw new FaultSyntaxError(`retry_after takes whole seconds, 0 to ${MAX_FAULT_RETRY_AFTER_S}`);
        retryAfter = Number(value);
        break;
      case 'latency': {
        const m = /^(\d{1,6})(ms|s)$/.exec(value ?? '');
        const ms = m ? Number(m[1]) * (m[2] === 's' ? 1000 : 1) : NaN;
        if (!(ms <= MAX_FAULT_LATENCY_MS))
          throw new FaultSyntaxError(
            `latency takes a duration such as 1500ms or 2s, at most ${MAX_FAULT_LATENCY_MS / 1000}s`,
          );
        fault.latencyMs = ms;
        break;
      }
      case 'reset':
        fault.before = flag({ kind: 'reset' });
        break;
      case 'drop':
        if (target !== 'webhook')
          throw new FaultSyntaxError('drop applies to webhook deliveries only (for a request: reset)');
        fault.before = flag({ kind: 'drop' });
        break;
      case 'after_commit':
        if (target !== 'request')
          throw new FaultSyntaxError(
            'after_commit applies to requests only (for a delivery whose answer is lost: reset)',
          );
        if (value === 'reset') fault.afterCommit = { kind: 'reset' };
        else if (value?.startsWith('status='))
          fault.afterCommit = { kind: 'status', status: statusOf(value.slice(7), target) };
        else throw new FaultSyntaxError('after_commit takes reset or status=NNN');
        break;
      default:
        throw new FaultSyntaxError(
          `unknown item "${name}" (known: status, retry_after, latency, reset, after_commit${target === 'webhook' ? ', drop' : ''})`,
        );
    }
  }
  const outcomes = ['status', 'reset', 'drop', 'after_commit'].filter((n) => seen.has(n));
  if (outcomes.length > 1) throw new FaultSyntaxError(`${outcomes.join(' and ')} cannot be combined: give one of them`);
  if (retryAfter !== undefined) {
    const action = fault.before ?? fault.afterCommit;
    if (action?.kind !== 'status')
      throw new FaultSyntaxError('retry_after goes with a status (status=429;retry_after=2)');
    action.retryAfter = retryAfter;
  }
  return { ...fault, text: faultText(fault) };
}

function actionText(a: FaultAction): string {
  if (a.kind !== 'status') return a.kind;
  return `status=${a.status}${a.retryAfter !== undefined ? `;retry_after=${a.retryAfter}` : ''}`;
}

/** The canonical form: latency first, then what happens. */
function faultText(f: Omit<Fault, 'text'>): string {
  const parts: string[] = [];
  if (f.latencyMs !== undefined) parts.push(`latency=${f.latencyMs}ms`);
  if (f.before) parts.push(actionText(f.before));
  if (f.afterCommit) parts.push(`after_commit=${actionText(f.afterCommit)}`);
  return parts.join(';');
}

// The rules' API (POST/GET/DELETE /test-helpers/faults).

const FaultText = Type.String({
  minLength: 1,
  maxLength: MAX_FAULT_LENGTH,
  description: 'a fault in the Payorch-Simulate grammar, e.g. `status=503` or `after_commit=reset`',
});

export const FaultRuleBody = Type.Object(
  {
    fault: FaultText,
    method: Type.Optional(
      Type.Union([...HTTP_METHODS.map((m) => Type.Literal(m)), Type.Literal('*')], {
        description: 'request rules: the method (default `*`, any)',
      }),
    ),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        pattern: '^/[^\\s?#]*$',
        description:
          'request rules: a path glob under the base URL; `*` matches within a segment, `**` across segments (default `/**`)',
      }),
    ),
    webhook_endpoint: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'a webhook rule: the endpoint whose deliveries get the fault (`*`: every endpoint)',
      }),
    ),
    count: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: 'inject at most this many times, then stop (default: no limit)',
      }),
    ),
    rate: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          'the share of matching requests that get the fault, deterministically: with 0.5, the 2nd, 4th, 6th… (default 1)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FaultRuleBody = Static<typeof FaultRuleBody>;

export const FaultRule = Type.Object(
  {
    object: Type.Literal('fault_rule'),
    id: Type.String(),
    /** `server`: from `server start --faults`, for every account; `account`: added over the API, for its account only. */
    scope: Type.Union([Type.Literal('server'), Type.Literal('account')]),
    target: Type.Union([Type.Literal('request'), Type.Literal('webhook')]),
    fault: Type.String({ description: 'the fault, in canonical form' }),
    method: Type.Union([Type.String(), Type.Null()]),
    path: Type.Union([Type.String(), Type.Null()]),
    webhook_endpoint: Type.Union([Type.String(), Type.Null()]),
    rate: Type.Number(),
    count: Type.Union([Type.Integer(), Type.Null()]),
    matched: Type.Integer({ minimum: 0, description: 'requests (or delivery attempts) the rule matched' }),
    injected: Type.Integer({ minimum: 0, description: 'faults it injected' }),
    remaining: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'injections left (null: no count); 0: spent',
    }),
  },
  { $id: 'FaultRule' },
);
export type FaultRule = Static<typeof FaultRule>;

export const FaultRuleList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(FaultRule),
  has_more: Type.Boolean(),
  url: Type.String(),
});
export type FaultRuleList = Static<typeof FaultRuleList>;

export const ClearedFaultRules = Type.Object({
  object: Type.Literal('fault_rules_cleared'),
  deleted: Type.Integer({ minimum: 0 }),
});
export type ClearedFaultRules = Static<typeof ClearedFaultRules>;
