// The one place that decides the API's path prefix. A module of its own, with no imports, so that the client
// and the CLI can use it without loading TypeBox (which common.ts does) at start-up.

/** Base path of every API route (docs/api.md "Conventions": `{base_url}` ends in `/functions/v1`). */
export const API_PREFIX = '/functions/v1';
