// Long work in steps (docs/api.md "Test clock"): a generator whose every `next()` does a bounded amount of work,
// each step run in a write transaction of its own, other requests running between steps. Store machinery: the
// scheduler's catch-up (domain/due.ts) and the routes that answer after long work (http/execute.ts) use it.
import type { Store } from './seam.js';

/**
 * What a step yields when the work it tried met a conflict with other transactions (an engine of many at once aborts
 * one of two that meet): its transaction is to be given up, and the generator, resumed in the next step's transaction,
 * goes on from what is committed (it knows, from what it noted to follow a commit, that this step left nothing).
 */
export const AGAIN: unique symbol = Symbol('again');

/**
 * Long work as steps: each `next()` does a bounded amount of work and must run inside a transaction of its
 * own (see runSteps); the generator's return value is the result. A step yields nothing, or AGAIN.
 */
export type Steps<T> = AsyncGenerator<void | typeof AGAIN, T, void>;

/** How many steps in a row may end with AGAIN and fail, before the failure is the whole work's. */
const AGAIN_TIMES = 20;

/**
 * Runs `steps` to the end, each step in a write transaction of its own that waits for the group commit's open
 * batch (store.alone: never run again by a batch's re-run), yielding to other requests between steps. A step that
 * yielded AGAIN and whose transaction failed is followed by the next one (after a short pause), up to AGAIN_TIMES in
 * a row; any other failure of a step is the work's.
 */
export function runSteps<T>(store: Store, steps: Steps<T>): Promise<T>;
/** …or until `stop()` says so between two steps (undefined then: what ran is committed, the rest still due). */
export function runSteps<T>(store: Store, steps: Steps<T>, stop: () => boolean): Promise<T | undefined>;
export async function runSteps<T>(store: Store, steps: Steps<T>, stop?: () => boolean): Promise<T | undefined> {
  try {
    for (let again = 0; ;) {
      let yielded: IteratorResult<void | typeof AGAIN, T> | undefined;
      let r: IteratorResult<void | typeof AGAIN, T>;
      try {
        r = await store.alone(async () => (yielded = await steps.next()));
        again = 0;
      } catch (err) {
        if (yielded?.done !== false || yielded.value !== AGAIN || ++again > AGAIN_TIMES) throw err;
        await new Promise<void>((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** again)));
        continue;
      }
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
