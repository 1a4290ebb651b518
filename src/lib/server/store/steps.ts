// Long work in steps (docs/api.md "Test clock"): a generator whose every `next()` does a bounded amount of work,
// each step run in a write transaction of its own, other requests running between steps. Store machinery: the
// scheduler's catch-up (domain/due.ts) and the routes that answer after long work (http/execute.ts) use it.
import type { Store } from './seam.js';

/**
 * Long work as steps: each `next()` does a bounded amount of work and must run inside a transaction of its
 * own (see runSteps); the generator's return value is the result.
 */
export type Steps<T> = AsyncGenerator<void, T, void>;

/**
 * Runs `steps` to the end, each step in a write transaction of its own that waits for the group commit's open
 * batch (store.alone: never run again by a batch's re-run), yielding to other requests between steps.
 */
export function runSteps<T>(store: Store, steps: Steps<T>): Promise<T>;
/** …or until `stop()` says so between two steps (undefined then: what ran is committed, the rest still due). */
export function runSteps<T>(store: Store, steps: Steps<T>, stop: () => boolean): Promise<T | undefined>;
export async function runSteps<T>(store: Store, steps: Steps<T>, stop?: () => boolean): Promise<T | undefined> {
  try {
    for (;;) {
      const r = await store.alone(() => steps.next());
      if (r.done) return r.value;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (stop?.()) return undefined;
    }
  } finally {
    // Left before its end (stopped, or a step's transaction failed after the step yielded): the steps' own `finally`
    // blocks run now, outside any transaction (the scheduler's note of an advance in progress ends there).
    await steps.return(undefined as T).catch(() => undefined);
  }
}

/** Runs `steps` to the end at once, all in the caller's thread (the embedded default: no other clients). */
export async function runStepsNow<T>(store: Store, steps: Steps<T>): Promise<T> {
  for (;;) {
    const r = await store.tx(() => steps.next());
    if (r.done) return r.value;
  }
}
