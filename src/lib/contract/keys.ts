// The one rule for what a live key looks like, with no imports (the CLI, the client and the server use it).

/** A live key, secret or restricted (`sk_live_…`, `rk_live_…`): the one rule for LIVE labels and confirmations. */
export const isLiveKey = (key: string | undefined) => key !== undefined && /^(sk|rk)_live_/.test(key);
