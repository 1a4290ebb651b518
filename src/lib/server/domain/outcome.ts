// The one type for a failure whose side effects are committed: a declined payment is recorded as failed, a
// failed invoice attempt is recorded on the invoice, and the request still answers with the error. A thrown
// ServiceError is the other kind of failure: it undoes everything the request wrote.
import type { ServiceError } from '../errors.js';

export class Outcome {
  constructor(readonly error: ServiceError) {}
}

/** What a domain operation that can fail without undoing its writes returns: its result, or the committed failure. */
export type Committed<T> = T | Outcome;

/** `r` with `f` applied to its result; a committed failure passes through unchanged. */
export function mapCommitted<T, U>(r: Committed<T>, f: (value: T) => U): Committed<U> {
  return r instanceof Outcome ? r : f(r);
}
