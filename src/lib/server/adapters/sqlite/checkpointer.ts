// A worker thread that checkpoints the server's WAL into the database file, so that the HTTP thread's
// COMMITs only append to the WAL (SQLite's automatic checkpoint runs inside the COMMIT that crosses 1000 pages).
// PASSIVE checkpoints never block the writer; they copy what readers no longer need.
//
// Under constant load a checkpoint from another connection never catches up with the writer (frames are
// appended while it copies), and SQLite only rewinds the WAL file once every frame is in the database. So when
// the WAL has grown past `resetBytes`, the worker asks the HTTP thread to run one PASSIVE checkpoint itself
// between two batches: the worker has copied almost everything, the remainder is small, and the next batch
// starts the WAL over from its beginning.
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { path, intervalMs, resetBytes } = workerData as { path: string; intervalMs: number; resetBytes: number };
const db = new Database(path);
db.pragma('busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const walSize = () => {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
};

/** While the HTTP thread finishes a checkpoint, this one waits (two checkpointers would find each other busy). */
let waiting = false;

const run = () => {
  if (waiting) return;
  try {
    checkpoint.run();
  } catch {
    /* busy or closing: the next round checkpoints */
  }
  if (walSize() > resetBytes) {
    // Once more at once: this round copies only what arrived during the last one, so that what is left for the
    // HTTP thread is as small as can be.
    try {
      checkpoint.run();
    } catch {
      /* as above */
    }
    waiting = true;
    parentPort!.postMessage('finish-checkpoint');
  }
};
const timer = setInterval(run, intervalMs);

parentPort!.on('message', (message: unknown) => {
  if (message === 'finished') waiting = false;
  if (message !== 'stop') return;
  clearInterval(timer);
  run();
  db.close();
  parentPort!.postMessage('stopped');
  parentPort!.close();
});
