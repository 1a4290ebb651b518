// Routing rules as data: the first rule that matches a payment's method, currency and amount gives the
// ordered candidate processors. A default set ships here; `payorch server start --routing FILE` replaces it.
// `route` tries those candidates in order with failover (the payments service's confirm and off-session charges).
import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { Type } from '@sinclair/typebox';
import { RoutingRule, type PaymentAttempt } from '../../../contract/payments.js';
import type { PaymentMethodType } from '../../../contract/sessions.js';
import type { ProcessorRegistry, ProcessorRequest } from './processors.js';

/** At most this many processors are tried for one payment (contract §7). */
export const MAX_ATTEMPTS = 3;

export const DEFAULT_ROUTING: RoutingRule[] = [
  {
    name: 'large card payments',
    payment_method_types: ['card'],
    min_amount: 1_000_000,
    candidates: ['iris', 'aurora', 'basalt'],
  },
  {
    name: 'cards in USD',
    payment_method_types: ['card'],
    currencies: ['USD'],
    candidates: ['aurora', 'basalt', 'cobalt'],
  },
  {
    name: 'cards in EUR/GBP',
    payment_method_types: ['card'],
    currencies: ['EUR', 'GBP'],
    candidates: ['dune', 'ember', 'fjord'],
  },
  { name: 'other cards', payment_method_types: ['card'], candidates: ['garnet', 'harbor', 'aurora'] },
  { name: 'walletone_pay', payment_method_types: ['walletone_pay'], candidates: ['jasper', 'aurora', 'krypton'] },
  { name: 'wallettwo_pay', payment_method_types: ['wallettwo_pay'], candidates: ['krypton', 'basalt', 'jasper'] },
  { name: 'walletthree', payment_method_types: ['walletthree'], candidates: ['jasper', 'krypton', 'cobalt'] },
  { name: 'ACH debits', payment_method_types: ['bank_account'], currencies: ['USD'], candidates: ['harbor', 'iris'] },
  { name: 'fallback', candidates: ['aurora', 'basalt', 'cobalt'] },
];

const RoutingFile = Type.Union([
  Type.Array(RoutingRule, { minItems: 1 }),
  Type.Object({ rules: Type.Array(RoutingRule, { minItems: 1 }) }),
]);

/** Validates rules given as JSON (an array of rules or `{rules: [...]}`); throws an Error that names the problem. */
export function parseRouting(json: unknown): RoutingRule[] {
  if (!Value.Check(RoutingFile, json)) {
    const first = [...Value.Errors(RoutingFile, json)][0];
    throw new Error(`Invalid routing rules${first ? ` at ${first.path || '/'}: ${first.message}` : ''}.`);
  }
  const rules = Array.isArray(json) ? json : json.rules;
  return rules.map((r) => ({ ...r, currencies: r.currencies?.map((c) => c.toUpperCase()) }));
}

/** Reads a routing file (JSON). */
export function loadRoutingFile(path: string): RoutingRule[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`Cannot read routing file ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`Routing file ${path} is not JSON: ${(err as Error).message}`);
  }
  return parseRouting(json);
}

export function matches(rule: RoutingRule, method: PaymentMethodType, currency: string, amount: number): boolean {
  if (rule.payment_method_types && !rule.payment_method_types.includes(method)) return false;
  if (rule.currencies && !rule.currencies.includes(currency.toUpperCase())) return false;
  if (rule.min_amount !== undefined && amount < rule.min_amount) return false;
  if (rule.max_amount !== undefined && amount > rule.max_amount) return false;
  return true;
}

/** The ordered candidates for a payment; when no rule matches, every processor in id order. */
export function candidatesFor(
  rules: RoutingRule[],
  method: PaymentMethodType,
  currency: string,
  amount: number,
  all: string[],
): string[] {
  const rule = rules.find((r) => matches(r, method, currency, amount));
  return rule ? [...rule.candidates] : [...all];
}

/** What routing did: the attempts made, the processor that answered last, and the outcome. */
export interface RouteResult {
  attempts: PaymentAttempt[];
  psp: string | null;
  outcome:
    | { kind: 'approved' | 'requires_3ds'; transaction_id: string }
    | { kind: 'failed'; code: string; message: string; decline_code: string };
}

/** Tries the candidates in order: at most MAX_ATTEMPTS, failover on retryable failures, never on declines. */
export function route(
  rules: RoutingRule[],
  processors: ProcessorRegistry,
  /** The account the payment is for: which processors it has marked down. */
  accountId: string,
  method: PaymentMethodType,
  currency: string,
  amount: number,
  forced: string | undefined,
  base: Omit<ProcessorRequest, 'attempt_index'>,
): RouteResult {
  const candidates = forced
    ? [forced]
    : candidatesFor(rules, method, currency, amount, processors.ids()).slice(0, MAX_ATTEMPTS);
  const attempts: PaymentAttempt[] = [];
  let last = { code: 'processing_error', message: 'No processor could take this payment.' };
  for (const psp of candidates) {
    if (!processors.has(psp) || processors.isDown(accountId, psp)) {
      attempts.push({ psp, status: 'failed', code: 'processor_unavailable' });
      last = { code: 'processor_unavailable', message: `Processor ${psp} is unavailable.` };
      continue;
    }
    const r = processors.get(psp).authorize({ ...base, attempt_index: attempts.length });
    if (r.kind === 'approved' || r.kind === 'requires_3ds') {
      attempts.push({ psp, status: r.kind === 'approved' ? 'succeeded' : 'requires_action', code: null });
      return { attempts, psp, outcome: { kind: r.kind, transaction_id: r.transaction_id } };
    }
    attempts.push({ psp, status: 'failed', code: r.code });
    if (r.kind === 'declined') {
      return {
        attempts,
        psp,
        outcome: {
          kind: 'failed',
          code: r.code,
          message: r.message,
          decline_code: r.code === 'card_declined' ? 'generic_decline' : r.code,
        },
      };
    }
    last = { code: r.code, message: r.message };
  }
  const tried = attempts.length;
  return {
    attempts,
    psp: attempts.at(-1)?.psp ?? null,
    outcome: {
      kind: 'failed',
      code: 'processing_error',
      decline_code: last.code,
      message: `An error occurred while processing the payment (${tried} processor${tried === 1 ? '' : 's'} tried: ${last.message})`,
    },
  };
}
