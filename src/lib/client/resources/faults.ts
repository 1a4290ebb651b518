// Fault injection's rules (docs/api.md "Fault injection"), test mode only.
import type { ClearedFaultRules, FaultRule, FaultRuleBody, FaultRuleList } from '../../contract/faults.js';
import { enc, type CallOptions, type Requester } from './base.js';

export type { FaultRule, FaultRuleBody };

export class FaultRulesResource {
  constructor(private readonly c: Requester) {}

  /** A rule for this account's matching requests (method, path glob) or webhook deliveries (webhook_endpoint). */
  add(params: FaultRuleBody, options?: CallOptions): Promise<FaultRule> {
    return this.c.request('POST', '/test-helpers/faults', { body: params, ...options });
  }

  /** The rules that apply to this account: the server's (`--faults`), then its own. */
  list(options?: CallOptions): Promise<FaultRuleList> {
    return this.c.request('GET', '/test-helpers/faults', options);
  }

  /** Deletes this account's rules (the server's stay). */
  clear(options?: CallOptions): Promise<ClearedFaultRules> {
    return this.c.request('DELETE', '/test-helpers/faults', options);
  }

  del(id: string, options?: CallOptions): Promise<{ id: string; object: 'fault_rule'; deleted: true }> {
    return this.c.request('DELETE', `/test-helpers/faults/${enc(id)}`, options);
  }
}
