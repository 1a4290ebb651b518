// Lengths of time, each written once, in the units the code counts in (milliseconds on the server's clock, seconds
// in the API's timestamps). No imports: the CLI loads it at start-up.

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
export const DAY_S = 86_400;
