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
const RULES_PATH = '/test-helpers/faults';

interface Rule {
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
function globRe(glob: string): RegExp {
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

/** The server's fault rules, in memory (a restart forgets those added over the API). */
export class FaultRules {
  private rules: Rule[] = [];
  private seq = 0;

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
    const rule: Rule = {
      id: `flt_${++this.seq}`,
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
  remove(accountId: string, id: string): 'deleted' | 'server' | 'missing' {
    const rule = this.rules.find((r) => r.id === id && (r.accountId === '' || r.accountId === accountId));
    if (!rule) return 'missing';
    if (rule.accountId === '') return 'server';
    this.rules = this.rules.filter((r) => r !== rule);
    return 'deleted';
  }

  /** The fault the rules give this request (counted), if any. */
  forRequest(accountId: string, method: string, path: string): Fault | undefined {
    if (path.startsWith(RULES_PATH)) return undefined;
    return this.take(
      (r) => r.target === 'request' && (r.method === '*' || r.method === method) && r.pathRe!.test(path),
      accountId,
    );
  }

  /** The fault the rules give this delivery attempt to the endpoint (counted), if any. */
  forDelivery(accountId: string, endpointId: string): Fault | undefined {
    return this.take((r) => r.target === 'webhook' && (r.endpoint === '*' || r.endpoint === endpointId), accountId);
  }

  /** Whether an unspent rule may give the endpoint's deliveries a fault (they are then sent one per batch). */
  watches(accountId: string, endpointId: string): boolean {
    return this.rules.some(
      (r) =>
        r.target === 'webhook' &&
        (r.accountId === '' || r.accountId === accountId) &&
        (r.endpoint === '*' || r.endpoint === endpointId) &&
        !spent(r),
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
      const k = ++r.matched;
      if (Math.floor(k * r.rate + 1e-9) === Math.floor((k - 1) * r.rate + 1e-9)) continue;
      r.injected++;
      return r.fault;
    }
    return undefined;
  }
}

const spent = (r: Rule) => r.count !== null && r.injected >= r.count;

function view(r: Rule): FaultRule {
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
