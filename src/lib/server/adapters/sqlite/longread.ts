// Long reads: a GET whose statements may have to look at many rows — a filter no index serves, such as the
// event log by time — describes them instead of running them (LongRead), and the store runs them off the HTTP
// thread when it can (a read-only connection in a worker thread, reader.ts): on the HTTP thread such a read keeps
// every other client waiting.
import { Worker } from 'node:worker_threads';
import { ReadAway } from '../../store/seam.js';

export type SqlParam = string | number | null;

/**
 * A read of committed data: `queries` run together in one read transaction (they see one snapshot), then
 * `finish` makes the answer from their rows (in order). `finish` must not touch the store: it may run after
 * other requests' writes have committed.
 */
export class LongRead<T> extends ReadAway<T> {
  constructor(
    readonly queries: { sql: string; params: SqlParam[] }[],
    readonly finish: (rows: unknown[][]) => T,
  ) {
    super();
  }
}

/** What the HTTP thread sends the worker (reader.ts), and what comes back: the rows of each query, or why not. */
export interface ReadRequest {
  id: number;
  queries: LongRead<unknown>['queries'];
}
export interface ReadReply {
  id: number;
  rows?: unknown[][];
  error?: string;
  /** The failure's code (SQLITE_IOERR_READ, …): what tells a storage fault (503) from a bug (500). */
  code?: string;
}

interface Pending {
  resolve: (rows: unknown[][]) => void;
  reject: (err: Error) => void;
}

/** The worker that runs long reads, one at a time, in the order they came. */
export class BackgroundReader {
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private stopped = false;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: ReadReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(Object.assign(new Error(`long read failed: ${m.error}`), { code: m.code }));
      else p.resolve(m.rows!);
    });
    const fail = (err: Error) => {
      this.stopped = true;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the long-read worker stopped')));
    worker.unref();
  }

  static async start(path: string): Promise<BackgroundReader> {
    const worker = new Worker(new URL('./reader.js', import.meta.url), { workerData: { path } });
    await new Promise<void>((resolve, reject) => {
      worker.once('online', () => resolve());
      worker.once('error', reject);
    });
    return new BackgroundReader(worker);
  }

  /** Whether it still takes reads (a worker that failed does not: the store reads on its own thread again). */
  get running(): boolean {
    return !this.stopped;
  }

  run(queries: LongRead<unknown>['queries']): Promise<unknown[][]> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, queries } satisfies ReadRequest);
    });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.ref(); // keep the process alive until the worker has closed its connection and gone
    this.worker.postMessage('stop');
    await exited;
  }
}

/**
 * Where a store's long reads run: in a background reader once `enable`d (a long-running server) and started with
 * the first long read (a cost that a server which never gets one does not pay), else on the caller's
 * thread (`here`). A reader that could not start or has stopped leaves the reads to the caller's thread.
 */
export class LongReads {
  private reader?: Promise<BackgroundReader | undefined>;
  private enabled = false;

  constructor(private readonly path: string) {}

  enable(): void {
    this.enabled = this.path !== ':memory:';
  }

  async run<T>(long: LongRead<T>, here: () => Promise<T>): Promise<T> {
    if (this.enabled) this.reader ??= BackgroundReader.start(this.path).catch(() => undefined);
    const background = await this.reader;
    if (background?.running) {
      try {
        return long.finish(await background.run(long.queries));
      } catch (err) {
        if (background.running) throw err; // a failed statement; a worker that stopped leaves the read to this thread
      }
    }
    return here();
  }

  /** Lets the reader finish what it runs and end; later reads run on the caller's thread. */
  async stop(): Promise<void> {
    this.enabled = false;
    const r = this.reader;
    this.reader = undefined;
    await (await r)?.stop();
  }

  /** Ends the reader without waiting (the store is closing). */
  kill(): void {
    this.enabled = false;
    void this.reader?.then((r) => r?.stop());
    this.reader = undefined;
  }
}
