// The checkpointer worker (checkpointer.ts) seen from the server's thread: started, stopped, and its hand-off of a
// last checkpoint between two batches of the group commit.
import type { Database as Connection } from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import type { GroupCommit } from './groupcommit.js';

/** The checkpointer worker once started: `stop` lets it finish a last checkpoint, `kill` ends it at once. */
export interface BackgroundCheckpoints {
  stop(): Promise<void>;
  kill(): void;
}

/**
 * Starts the checkpointer worker (adapters/sqlite/checkpointer.ts) and turns SQLite's own checkpoints on this
 * connection off while it runs; resolves once it runs. Should the worker fail, this connection checkpoints again and
 * `onFailed` is told.
 */
export async function startCheckpoints(
  db: Connection,
  path: string,
  group: GroupCommit,
  {
    intervalMs = 100,
    resetBytes = 64 * 1024 * 1024,
    onHandOff,
  }: { intervalMs?: number; resetBytes?: number; onHandOff?: () => void },
  onFailed: () => void,
): Promise<BackgroundCheckpoints> {
  const worker = new Worker(new URL('./checkpointer.js', import.meta.url), {
    workerData: { path, intervalMs, resetBytes },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('online', () => resolve());
    worker.once('error', reject);
  });
  let running = true;
  const selfCheckpoints = () => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  };
  worker.on('error', () => {
    // The worker failed (it only checkpoints): go back to SQLite's own checkpoints on this thread.
    if (!running) return;
    running = false;
    selfCheckpoints();
    onFailed();
  });
  worker.on(
    'message',
    (m) => m === 'finish-checkpoint' && group.finishCheckpoint(() => worker.postMessage('finished'), onHandOff),
  );
  worker.unref();
  db.pragma('wal_autocheckpoint = 0');
  return {
    async stop() {
      if (!running) return;
      running = false;
      worker.ref(); // keep the process alive until the worker has finished its last checkpoint
      await new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.on('message', (m) => m === 'stopped' && void worker.terminate());
        worker.postMessage('stop');
      });
      selfCheckpoints();
    },
    kill() {
      running = false;
      void worker.terminate();
    },
  };
}
