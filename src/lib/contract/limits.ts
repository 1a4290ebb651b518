// Limits shared by the server's schemas and the CLI, kept free of runtime imports (the CLI loads this
// without TypeBox).

/**
 * How far one advance-clock call may move an account's test clock: each call runs everything that comes due
 * on the way (a renewal per period per subscription), so an unbounded jump could hold the server for as long
 * as it liked. `payorch clock advance` steps through longer spans in calls of this size.
 */
export const MAX_CLOCK_ADVANCE_SECONDS = 366 * 86400;
