// The live request log (docs/api.md "Request log"): what `payorch logs tail` polls.
import { RequestLogPage, RequestLogQuery } from '../../contract/requestlog.js';
import { defineRoute, type RouteSpec } from '../http/route.js';

export const logsRoutes: RouteSpec[] = [
  defineRoute({
    method: 'GET',
    url: '/request-log',
    operationId: 'readRequestLog',
    summary:
      "The account's recent API requests (method, path, status, duration, request id), oldest first after `after`",
    tag: 'Request log',
    auth: 'api_key',
    query: RequestLogQuery,
    response: RequestLogPage,
    handler: ({ accountId, query, path, requestLog }) => requestLog.read(accountId, path, query),
  }),
];
