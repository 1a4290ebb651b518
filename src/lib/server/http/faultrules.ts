// The server's fault rules (docs/api.md "Fault injection"): kept in memory, matched against requests and webhook
// deliveries, counted. The hooks that apply what they give are faults.ts's.
import {
  FaultSyntaxError,
  parseFault,
  type Fault,
  type FaultRule,
  type FaultRuleBody,
  FaultRuleBody as FaultRuleBodySchema,
} from '../../contract/faults.js';
import { errors } from '../errors.js';
import { compileValidator, validationError } from './validation.js';

/** The routes that manage the rules: never matched by a rule (a rule could otherwise lock its own `clear` out). */
export const RULES_PATH = '/test-helpers/faults';

/** A rule as kept: what it matches, its fault, and what it has matched and injected so far. */
export interface Rule {
  id: string;
  /** '' for a server-wide rule (`server start --faults`), else the account that added it. */
  accountId: string;
  target: 'request' | 'webhook';
  method: string;
  path: string | null;
  pathRe?: RegExp;
  endpoint: string | null;
  fault: Fault;
  rate: number;
  count: number | null;
  matched: number;
  injected: number;
}

/** A path glob as a regular expression: `*` within a segment, `**` across segments. */
export function globRe(glob: string): RegExp {
  const re = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${re}/?$`);
}

let checkBody: ReturnType<typeof compileValidator> | undefined;

/**
 * The rule a body asks for (without its id), checked: `accountId` '' for a server-wide one. Throws the contract's 400
 * for a rule that is not one (the API validated its shape already; a rules file is checked here against the same
 * schema). `checkEndpoint` refuses an endpoint that is not the account's (a 404), once the rule is otherwise valid.
 */
export async function compileRule(
  accountId: string,
  body: FaultRuleBody,
  checkEndpoint?: (id: string) => Promise<unknown>,
): Promise<Omit<Rule, 'id'>> {
  if (!accountId) {
    checkBody ??= compileValidator(FaultRuleBodySchema, 'body');
    if (!checkBody(body)) throw validationError(checkBody.errors ?? [], 'body');
  }
  const webhook = body.webhook_endpoint !== undefined;
  if (webhook && (body.path !== undefined || body.method !== undefined)) {
    throw errors.parameterInvalid(
      'webhook_endpoint',
      'a rule targets requests (method, path) or webhook deliveries (webhook_endpoint), not both',
    );
  }
  let fault: Fault;
  try {
    fault = parseFault(body.fault, webhook ? 'webhook' : 'request');
  } catch (err) {
    if (err instanceof FaultSyntaxError) throw errors.parameterInvalid('fault', err.message);
    throw err;
  }
  if (body.webhook_endpoint !== undefined && body.webhook_endpoint !== '*')
    await checkEndpoint?.(body.webhook_endpoint);
  const path = webhook ? null : (body.path ?? '/**');
  return {
    accountId,
    target: webhook ? 'webhook' : 'request',
    method: webhook ? '*' : (body.method ?? '*'),
    path,
    pathRe: path === null ? undefined : globRe(path),
    endpoint: body.webhook_endpoint ?? null,
    fault,
    rate: body.rate ?? 1,
    count: body.count ?? null,
    matched: 0,
    injected: 0,
  };
}

/** What `remove` did: deleted the rule, or why not (a server-wide rule stays; another account's is missing to it). */
export type Removal = 'deleted' | 'server' | 'missing';

/**
 * Where the fault rules are kept and counted: this process's memory (one server per data directory: `FaultRules`), or
 * a database every server process of a sandbox shares (adapters/postgres/faultrules.ts), so that a rule added through
 * any process applies to requests reaching any of them and its count is used up once across them. Each answer may be
 * a promise (a store that awaits its database); `active` and `watches` never wait.
 */
export interface FaultRulePort {
  /** Whether a rule may apply to a request (the one check a request without the header pays, per request). */
  readonly active: boolean;
  /** Adds a rule: `accountId` '' for a server-wide one (`server start --faults`, kept in each process's memory). */
  add(accountId: string, body: FaultRuleBody, checkEndpoint?: (id: string) => Promise<unknown>): Promise<FaultRule>;
  /** The rules that apply to the account's requests: the server-wide ones, then its own, oldest first. */
  list(accountId: string): FaultRule[] | Promise<FaultRule[]>;
  /** Deletes the account's own rules; server-wide rules stay. How many went. */
  clear(accountId: string): number | Promise<number>;
  /** Deletes one of the account's rules. */
  remove(accountId: string, id: string): Removal | Promise<Removal>;
  /** The fault the rules give this request (counted), if any. */
  forRequest(accountId: string, method: string, path: string): Fault | undefined | Promise<Fault | undefined>;
  /** The fault the rules give this delivery attempt to the endpoint (counted), if any. */
  forDelivery(accountId: string, endpointId: string): Fault | undefined | Promise<Fault | undefined>;
  /** Whether an unspent rule may give the endpoint's deliveries a fault (they are then sent one per batch). */
  watches(accountId: string, endpointId: string): boolean;
  /** Brings `watches` up to date with rules other processes changed (a store in memory has nothing to do). */
  refresh?(): Promise<void> | undefined;
}

/** The server's fault rules, in memory (a restart forgets those added over the API). */
export class FaultRules implements FaultRulePort {
  private rules: Rule[] = [];
  private seq = 0;

  /** `prefix`: the start of the rules' ids (`flt_1`, `flt_2`…). */
  constructor(private readonly prefix = 'flt_') {}

  /** Whether any rule is unspent (the one check a request without the header pays). */
  get active(): boolean {
    return this.rules.length > 0;
  }

  /**
   * Adds a rule: `accountId` '' for a server-wide one. Throws the contract's 400 for a rule that is not one (the
   * API validated its shape already; a rules file is checked here against the same schema). `checkEndpoint`
   * refuses an endpoint that is not the account's (a 404), once the rule is otherwise valid.
   */
  async add(
    accountId: string,
    body: FaultRuleBody,
    checkEndpoint?: (id: string) => Promise<unknown>,
  ): Promise<FaultRule> {
    const rule: Rule = { ...(await compileRule(accountId, body, checkEndpoint)), id: `${this.prefix}${++this.seq}` };
    this.rules.push(rule);
    return view(rule);
  }

  /** The rules that apply to the account's requests: the server-wide ones, then its own, oldest first. */
  list(accountId: string): FaultRule[] {
    return this.rules.filter((r) => r.accountId === '' || r.accountId === accountId).map(view);
  }

  /** Deletes the account's own rules; server-wide rules stay. How many went. */
  clear(accountId: string): number {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.accountId !== accountId);
    return before - this.rules.length;
  }

  /** Deletes one of the account's rules: whether it did, or why not (another account's rule is missing to it). */
  remove(accountId: string, id: string): Removal {
    const rule = this.rules.find((r) => r.id === id && (r.accountId === '' || r.accountId === accountId));
    if (!rule) return 'missing';
    if (rule.accountId === '') return 'server';
    this.rules = this.rules.filter((r) => r !== rule);
    return 'deleted';
  }

  /** The fault the rules give this request (counted), if any. */
  forRequest(accountId: string, method: string, path: string): Fault | undefined {
    if (path.startsWith(RULES_PATH)) return undefined;
    return this.take((r) => matchesRequest(r, method, path), accountId);
  }

  /** The fault the rules give this delivery attempt to the endpoint (counted), if any. */
  forDelivery(accountId: string, endpointId: string): Fault | undefined {
    return this.take((r) => matchesDelivery(r, endpointId), accountId);
  }

  /** Whether an unspent rule may give the endpoint's deliveries a fault (they are then sent one per batch). */
  watches(accountId: string, endpointId: string): boolean {
    return this.rules.some(
      (r) => (r.accountId === '' || r.accountId === accountId) && matchesDelivery(r, endpointId) && !spent(r),
    );
  }

  /**
   * The first unspent rule of the account (or server-wide) that matches and whose turn it is: with rate r, the
   * k-th match is injected when ⌊k·r⌋ passes a whole number (r = 0.5: the 2nd, 4th, …), so the same requests in the
   * same order get the same faults.
   */
  private take(matches: (r: Rule) => boolean, accountId: string): Fault | undefined {
    for (const r of this.rules) {
      if ((r.accountId !== '' && r.accountId !== accountId) || spent(r) || !matches(r)) continue;
      if (!isTurn(++r.matched, r.rate)) continue;
      r.injected++;
      return r.fault;
    }
    return undefined;
  }
}

export const spent = (r: Omit<Rule, 'id'>) => r.count !== null && r.injected >= r.count;

export function view(r: Rule): FaultRule {
  return {
    object: 'fault_rule',
    id: r.id,
    scope: r.accountId === '' ? 'server' : 'account',
    target: r.target,
    fault: r.fault.text,
    method: r.target === 'request' ? r.method : null,
    path: r.path,
    webhook_endpoint: r.endpoint,
    rate: r.rate,
    count: r.count,
    matched: r.matched,
    injected: r.injected,
    remaining: r.count === null ? null : Math.max(0, r.count - r.injected),
  };
}

/** Whether the k-th match of a rule with this rate is injected: when ⌊k·rate⌋ passes a whole number. */
export const isTurn = (k: number, rate: number): boolean =>
  Math.floor(k * rate + 1e-9) !== Math.floor((k - 1) * rate + 1e-9);

/** Whether a request rule matches a request (its method and its path under the base URL). */
export const matchesRequest = (r: Omit<Rule, 'id'>, method: string, path: string): boolean =>
  r.target === 'request' && (r.method === '*' || r.method === method) && r.pathRe!.test(path);

/** Whether a webhook rule matches a delivery to the endpoint. */
export const matchesDelivery = (r: Omit<Rule, 'id'>, endpointId: string): boolean =>
  r.target === 'webhook' && (r.endpoint === '*' || r.endpoint === endpointId);
