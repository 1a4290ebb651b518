import type { RouteSpec } from '../http/route.js';

export const identityRoutes: RouteSpec[] = [];
