// Processes a test starts that outlive a command (servers started with --detach): whether one is alive, and
// stopping them after the file's tests whatever happened.
import { afterAll } from 'vitest';

/** Whether process `pid` is alive (signal 0). */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A set to put such pids in: each still running after the file's tests gets SIGTERM. */
export function stoppedAfterAll(): Set<number> {
  const pids = new Set<number>();
  afterAll(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
  });
  return pids;
}
