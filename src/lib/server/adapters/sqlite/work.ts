// Work that answers at once (synchronous code) or with a promise (code that awaits the store), and the steps the
// transactions and the group commit chain on it without paying a microtask for synchronous work.

/** A transaction's work: a value at once, or a promise of it. */
export type Work<T> = T | Promise<T>;

export const isPromise = <T>(v: Work<T>): v is Promise<T> =>
  v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';

/**
 * `fn()`, then `ok` with its value or `fail` with what it threw: at once when `fn` answers at once, after it settles
 * when it answers with a promise. Synchronous work so pays no microtask; `ok` is never given to `fail`.
 */
export function andThen<T, R>(fn: () => Work<T>, ok: (value: T) => Work<R>, fail: (err: unknown) => Work<R>): Work<R> {
  let value: Work<T>;
  try {
    value = fn();
  } catch (err) {
    return fail(err);
  }
  return isPromise(value) ? value.then(ok, fail) : ok(value);
}

/** `step` for each item in order, each after the previous one settled; stops when a step answers `false`. */
export function inOrder<T>(items: readonly T[], step: (item: T) => Work<boolean | void>, from = 0): Work<void> {
  for (let i = from; i < items.length; i++) {
    const r = step(items[i]!);
    if (isPromise(r)) return r.then((go) => (go === false ? undefined : inOrder(items, step, i + 1)));
    if (r === false) return;
  }
}
