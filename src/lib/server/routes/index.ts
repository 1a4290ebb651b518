// Every route of the API, by area. An area adds its list here.
import type { RouteSpec } from '../http/route.js';
import { metaRoutes } from './meta.js';
import { sessionRoutes } from './sessions.js';

export const allRoutes: RouteSpec[] = [...metaRoutes, ...sessionRoutes];
