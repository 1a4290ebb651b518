// The stop list of a start: each step adds how to stop what it started, and `stopAll` stops them newest first —
// both how a server closes and how a start that failed half-way undoes itself.

/** How to stop what one start step started. */
type Stop = () => unknown;

/** What a start has started so far, each with how to stop it. */
export class Started {
  private readonly stops: Stop[] = [];

  add(stop: Stop): void {
    this.stops.push(stop);
  }

  /** Stops everything, each step even when one before it failed (the lock is still released); throws the first failure. */
  async stopAll(): Promise<void> {
    let failed: { err: unknown } | undefined;
    for (let stop = this.stops.pop(); stop; stop = this.stops.pop()) {
      try {
        await stop();
      } catch (err) {
        failed ??= { err };
      }
    }
    if (failed) throw failed.err;
  }
}
