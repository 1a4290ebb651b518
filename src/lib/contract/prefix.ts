// The one place that decides the API's path prefix. A module of its own, with no imports, so that the client
// and the CLI can use it without loading TypeBox (which common.ts does) at start-up.

/** Base path of every API route (docs/api.md "Conventions": `{base_url}` ends in `/functions/v1`). */
export const API_PREFIX = '/functions/v1';

/** The port a test-mode server listens on unless told otherwise (`payorch server start`, `startServer()`). */
export const DEFAULT_PORT = 4242;

/** Where a test-mode server listens unless told otherwise: the default port on loopback. */
export const DEFAULT_BASE_URL = `http://127.0.0.1:${DEFAULT_PORT}${API_PREFIX}`;
