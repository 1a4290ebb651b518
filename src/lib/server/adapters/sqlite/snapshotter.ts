// A worker thread that saves a snapshot (snapshots.ts): VACUUM INTO from a read-only connection of its own, so that
// the server's HTTP thread goes on answering while a database-sized copy is written.
import { parentPort, workerData } from 'node:worker_threads';
import { vacuumInto } from './vacuum.js';

const { from, to } = workerData as { from: string; to: string };
try {
  vacuumInto(from, to);
  parentPort!.postMessage({});
} catch (err) {
  parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
