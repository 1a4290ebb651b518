// Views of fault injection's rules (docs/api.md "Fault injection").
import type { FaultRule } from '../../contract/faults.js';
import type { Column } from '../render.js';

/** What a rule targets: a request pattern, or an endpoint's deliveries. */
const target = (r: FaultRule) =>
  r.target === 'webhook'
    ? `webhooks → ${r.webhook_endpoint === '*' ? 'every endpoint' : r.webhook_endpoint}`
    : `${r.method === '*' ? 'any' : r.method} ${r.path}`;

/** How often: every match, a rate, a count. */
const how = (r: FaultRule) =>
  [r.rate < 1 ? `rate ${r.rate}` : 'every match', r.count !== null ? `first ${r.count}` : '']
    .filter(Boolean)
    .join(', ');

export const faultRuleColumns: Column<FaultRule>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'SCOPE', value: (r) => r.scope },
  { header: 'TARGET', value: target, shrink: true },
  { header: 'FAULT', value: (r) => r.fault, shrink: 'wrap' },
  { header: 'WHEN', value: how },
  { header: 'MATCHED', value: (r) => r.matched },
  { header: 'INJECTED', value: (r) => r.injected },
  { header: 'LEFT', value: (r) => (r.remaining === null ? '∞' : r.remaining === 0 ? 'spent' : r.remaining) },
];

/** One line for a rule just added. */
export const faultRuleLine = (r: FaultRule): string =>
  `Added fault rule ${r.id}: ${r.fault} on ${target(r)} (${how(r)}).`;
