// Every route of the API, by area. Each area keeps its routes in routes/<area>.ts.
import type { RouteSpec } from '../http/route.js';
import { openApiDocument } from '../openapi.js';
import { metaRoutes } from './meta.js';
import { sessionRoutes } from './sessions.js';
import { paymentsRoutes } from './payments.js';
import { billingRoutes } from './billing.js';
import { ledgerRoutes } from './ledger.js';
import { identityRoutes } from './identity.js';
import { eventsRoutes } from './events.js';
import { logsRoutes } from './logs.js';
import { triggerRoutes } from './triggers.js';
import { webhooksRoutes } from './webhooks.js';
import { faultsRoutes } from './faults.js';

export const allRoutes: RouteSpec[] = [
  ...metaRoutes((baseUrl) => openApiDocument(baseUrl, allRoutes)),
  ...sessionRoutes,
  ...paymentsRoutes,
  ...billingRoutes,
  ...ledgerRoutes,
  ...identityRoutes,
  ...eventsRoutes,
  ...triggerRoutes,
  ...webhooksRoutes,
  ...logsRoutes,
  ...faultsRoutes,
];
