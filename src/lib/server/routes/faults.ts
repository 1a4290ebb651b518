// Fault injection's rules (docs/api.md "Fault injection"), test mode only: what `payorch server faults add|list|clear`
// calls. A rule added here applies to the requests (or webhook deliveries) of the account whose key added it; the
// rules of `server start --faults FILE` apply to every account and last as long as the server.
import { Type } from '@sinclair/typebox';
import { DeletedObject, EmptyQuery, IdParam } from '../../contract/common.js';
import { ClearedFaultRules, FaultRule, FaultRuleBody, FaultRuleList } from '../../contract/faults.js';
import { errors } from '../errors.js';
import { defineRoute, type RouteSpec } from '../http/route.js';

const tag = 'Fault injection';
const FaultRuleIdParams = Type.Object({ fault_rule_id: IdParam }, { additionalProperties: false });

export const faultsRoutes: RouteSpec[] = [
  defineRoute({
    method: 'POST',
    url: '/test-helpers/faults',
    operationId: 'addFaultRule',
    summary:
      "Add a fault rule: a fault for this account's matching requests (method, path glob) or webhook deliveries, by count or rate",
    tag,
    auth: 'api_key',
    body: FaultRuleBody,
    response: FaultRule,
    status: 201,
    errors: [404],
    // An endpoint named must be one of the account's (404 otherwise); `*` is every endpoint of it.
    handler: ({ accountId, body, services, faults }) =>
      faults.add(accountId, body, (id) => services.webhooks.endpoints.stored(accountId, id, 'webhook_endpoint')),
  }),
  defineRoute({
    method: 'GET',
    url: '/test-helpers/faults',
    operationId: 'listFaultRules',
    summary:
      "The fault rules that apply to this account (the server's, then its own), with what each has matched and injected",
    tag,
    auth: 'api_key',
    query: EmptyQuery,
    response: FaultRuleList,
    handler: async ({ accountId, path, faults }) => ({
      object: 'list',
      data: await faults.list(accountId),
      has_more: false,
      url: path,
    }),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/test-helpers/faults',
    operationId: 'clearFaultRules',
    summary: "Delete this account's fault rules (the server's, from --faults, stay)",
    tag,
    auth: 'api_key',
    response: ClearedFaultRules,
    handler: async ({ accountId, faults }) => ({
      object: 'fault_rules_cleared',
      deleted: await faults.clear(accountId),
    }),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/test-helpers/faults/:fault_rule_id',
    operationId: 'deleteFaultRule',
    summary: "Delete one of this account's fault rules",
    tag,
    auth: 'api_key',
    params: FaultRuleIdParams,
    response: DeletedObject('fault_rule'),
    errors: [404, 409],
    handler: async ({ accountId, params, faults }) => {
      const outcome = await faults.remove(accountId, params.fault_rule_id);
      if (outcome === 'missing') throw errors.notFound('fault rule', params.fault_rule_id, 'fault_rule_id');
      if (outcome === 'server')
        throw errors.conflict(
          'fault_rule_server_wide',
          "This rule comes from the server's --faults file: it lasts as long as the server.",
        );
      return { id: params.fault_rule_id, object: 'fault_rule', deleted: true };
    },
  }),
];
