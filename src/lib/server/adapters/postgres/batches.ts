// Shared commits: the requests' writes waiting when a transaction can start run in one transaction, each in a
// savepoint, answered once it committed — one COMMIT (one WAL flush) for many, and this process's postings to the
// same rows take turns inside it instead of aborting each other.
import type { ReservedSql } from 'postgres';
import { conflictLike, lostConnection } from './faults.js';
import { firstFailure, newFrame, newRoot, sendIn, type Frame, type Root } from './frames.js';
import { Transactions, type TransactionSettings } from './transactions.js';

/** How long a request of a shared transaction that already holds others' locks waits for a lock (ms). */
const LOCK_WAIT_MS = 100;

/** A request's write waiting for a batch, or running in one (`grouped`). */
interface Member {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** How many times a conflict undid it, and the last one. */
  tries: number;
  conflict?: unknown;
  /** When it first ran (ms): the budget of re-runs (`retryForMs`) counts from then. */
  since?: number;
}

/** Transactions, and `grouped` writes run in shared ones. */
export class SharedCommits extends Transactions {
  constructor(
    settings: TransactionSettings,
    private readonly batching: { at: number; size: number },
  ) {
    super(settings);
  }

  grouped<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.batching.at <= 0 || this.inTransaction()) return this.transaction('write', fn, true);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject, tries: 0 });
      this.startBatches();
    });
  }

  /** Requests' writes waiting for a batch (`grouped`), oldest first. */
  private readonly waiting: Member[] = [];
  /** Batches running now. */
  private running = 0;

  private startBatches(): void {
    while (this.waiting.length > 0 && this.running < this.batching.at) {
      this.running++;
      // A batch takes only writes that were waiting when it started: its snapshot, taken after, sees every write
      // acknowledged before any of them was asked for (a client's next request sees its last one).
      const members = this.waiting.splice(0, this.batching.size);
      void this.batch(members).finally(() => {
        this.running--;
        this.startBatches();
      });
    }
  }

  /**
   * `members` in one write transaction, each in a savepoint of its own, one after another, each answered once the
   * transaction committed. A member's writes are not waited for (`send`): the next member's statements go out behind
   * them. A member that throws is undone alone (ROLLBACK TO its savepoint) and answered with its failure at once — or,
   * when a write of an earlier member failed (PostgreSQL then refuses every statement after it), that member is
   * undone with all that ran after it, and those go back to the queue. A conflict (40001, 40P01) ends the batch: what
   * ran before it commits, and the members after it would meet the same change (the batch's snapshot is older), so
   * they go back to the front of the queue, the conflicted one first, for a batch with a new snapshot (`again`).
   */
  private async batch(members: Member[]): Promise<void> {
    const root = newRoot();
    const pool = this.sql;
    /** Members that ran and were not undone, in order. */
    const ran: { m: Member; part: Frame; name: string; value: unknown }[] = [];
    /** Members to run again in a later batch, in order. */
    const back: Member[] = [];
    let next = 0;
    /** Whether lock waits are bounded in this batch (after its first request). */
    let waitBounded = false;
    /** The member whose work runs now (it is in neither `ran` nor `back`). */
    let running: Member | undefined;
    let conn: ReservedSql | undefined;
    /** The first member in `ran` whose write failed, and the failure. */
    const culprit = async () => {
      for (const [index, r] of ran.entries()) {
        const failed = await firstFailure(r.part, root);
        if (failed) return { index, err: failed.err };
      }
      return undefined;
    };
    const conflicted = (m: Member, err: unknown) => {
      m.tries++;
      m.conflict = err;
      back.push(m);
    };
    try {
      conn = await pool.reserve();
      const c = conn;
      const whole = newFrame(c, root);
      await this.shell(
        c,
        root,
        'write',
        this.serialLock('write', 1, true),
        async () => {
          while (next < members.length) {
            const m = members[next]!;
            const name = `m${next++}`;
            running = m;
            m.since ??= Date.now();
            // A member's own `doomed`; the connection's state is the batch's.
            const own = Object.create(root) as Root;
            const part = newFrame(c, own);
            // Once the batch holds what a request locked, a later request that waits for a lock another transaction
            // holds may be one half of a deadlock (the other batch waiting for a row this one locked): it gives up
            // after LOCK_WAIT_MS (55P03) and runs in the next batch, rather than PostgreSQL breaking the cycle after
            // its deadlock_timeout (1 s). Sent in this request's part: a failure of an earlier request's write that
            // makes it fail is that one's.
            if (ran.length > 0 && !waitBounded) {
              waitBounded = true;
              sendIn(part, (q) => q.unsafe(`SET LOCAL lock_timeout = ${LOCK_WAIT_MS}`));
            }
            sendIn(part, (q) => q.unsafe(`SAVEPOINT ${name}`));
            let err: unknown;
            try {
              const value = await this.als.run(part, async () => m.fn());
              if (own.doomed !== undefined) throw own.doomed;
              const index = ran.length;
              whole.held.push(...part.held.splice(0).map((h) => ({ ...h, owner: index })));
              ran.push({ m, part, name, value });
              running = undefined;
              continue;
            } catch (caught) {
              err = caught;
            }
            if (root.lostWith !== undefined || lostConnection(err)) throw err;
            const earlier = await culprit();
            if (earlier) {
              running = undefined;
              const [failed, ...after] = ran.splice(earlier.index);
              // Their held writes (never sent: a request's part sends only its own) go with them.
              whole.held = whole.held.filter((h) => (h.owner ?? 0) < earlier.index);
              await c.unsafe(`ROLLBACK TO SAVEPOINT ${failed!.name}`);
              this.emit(this.rollbackListeners);
              if (conflictLike(earlier.err)) conflicted(failed!.m, earlier.err);
              else failed!.m.reject(this.fault(earlier.err));
              back.push(...after.map((r) => r.m), m);
              if (conflictLike(earlier.err)) break;
              continue;
            }
            const own_ = await firstFailure(part, root);
            if (own_) err = own_.err;
            if (root.lostWith !== undefined || lostConnection(err)) throw err;
            running = undefined;
            await c.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
            this.emit(this.rollbackListeners);
            if (conflictLike(err)) {
              // The batch ends here: what ran before commits, the rest waits for a new snapshot.
              conflicted(m, err);
              break;
            }
            m.reject(this.fault(err));
          }
          back.push(...members.slice(next));
          next = members.length;
          // The held writes (the event log's append, whose lock is the last a transaction takes: no deadlock) may
          // wait for another transaction's COMMIT as long as it takes.
          if (waitBounded) sendIn(whole, (q) => q.unsafe('SET LOCAL lock_timeout = 0'));
        },
        whole,
      );
    } catch (err) {
      this.emit(this.rollbackListeners);
      await this.ended(pool, conn, root, err);
      // The transaction was undone: by a write of a member that failed after the member's end (PostgreSQL answered
      // the COMMIT behind it by undoing all), or with the connection, or by a conflict.
      const earlier =
        root.lostWith === undefined && !lostConnection(err) ? await culprit().catch(() => undefined) : undefined;
      const undone = ran.map((r) => r.m);
      const rest = [...(running ? [running] : []), ...members.slice(next)];
      if (earlier) {
        const failed = undone.splice(earlier.index, 1)[0]!;
        if (conflictLike(earlier.err)) conflicted(failed, earlier.err);
        else failed.reject(this.fault(earlier.err));
        // The others' work was undone with it, through no fault of theirs.
        this.again(...back.splice(0), ...undone, ...rest);
        return;
      }
      if (!conflictLike(err)) {
        for (const m of [...undone, ...back, ...rest]) m.reject(this.fault(err));
        return;
      }
      for (const m of undone) {
        m.tries++;
        m.conflict = err;
      }
      this.again(...undone, ...back, ...rest);
      return;
    }
    await this.ended(pool, conn, root);
    if (ran.length) this.emit(this.commitListeners);
    for (const r of ran) r.m.resolve(r.value);
    this.again(...back);
  }

  /**
   * Members undone for a conflict (or not run for one), in their order: to the front of the queue, for a batch with a
   * new snapshot; one that a conflict undid twice, as a transaction of its own that takes its turn (`serialLock`).
   */
  private again(...members: Member[]): void {
    const batched: Member[] = [];
    for (const m of members) {
      if (m.tries === 0 || (m.tries <= 1 && m.tries < this.settings.attempts)) batched.push(m);
      else if (m.tries >= this.settings.attempts || Date.now() - (m.since ?? 0) >= this.settings.retryForMs)
        m.reject(this.fault(m.conflict));
      else this.transaction('write', m.fn, true, m.tries).then(m.resolve, m.reject);
    }
    if (!batched.length) return;
    this.waiting.unshift(...batched);
    this.startBatches();
  }
}
