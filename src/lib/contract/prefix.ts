// The one place that decides where the API is and how it is called: its path prefix, the default host and port of
// a test-mode server, which host names are this machine's loopback, and the HTTP methods of its routes. A module of
// its own, with no imports, so that the client and the CLI can use it without loading TypeBox (which common.ts does)
// at start-up.

/** Base path of every API route (docs/api.md "Conventions": `{base_url}` ends in `/functions/v1`). */
export const API_PREFIX = '/functions/v1';

/** The port a test-mode server listens on unless told otherwise (`payorch server start`, `startServer()`). */
export const DEFAULT_PORT = 4242;

/** The interface a test-mode server listens on unless told otherwise: loopback. */
export const DEFAULT_HOST = '127.0.0.1';

/** Where a test-mode server listens unless told otherwise: the default port on loopback. */
export const DEFAULT_BASE_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}${API_PREFIX}`;

const LOOPBACK_HOSTNAMES: readonly string[] = [DEFAULT_HOST, 'localhost', '[::1]'];

/** Whether a URL's hostname (as `URL.hostname` writes it) names this machine's loopback: a server payorch may run here. */
export const isLoopbackHostname = (hostname: string): boolean => LOOPBACK_HOSTNAMES.includes(hostname);

/** The HTTP methods of the API's routes: what a fixture step, a fault rule and `payorch api` may name. */
export const HTTP_METHODS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
