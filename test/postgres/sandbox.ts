// Server processes of a shared sandbox (README "A shared sandbox"), as the multi-process tests start them: each a
// process of its own (test/reliability/child.ts) with a data directory of its own, on one fresh PostgreSQL database
// of the file's server, all given one sealing key. Every process a test starts is stopped after it.
import { randomBytes } from 'node:crypto';
import { afterEach } from 'vitest';
import type { PostgresServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';
import { startChild, type Child } from '../reliability/child.js';

export interface SandboxProcess extends Child {
  dataDir: string;
}

export interface Sandbox {
  /** The database's URL. */
  url: string;
  /** The sealing key every process was given (hex). */
  key: string;
  procs: SandboxProcess[];
}

/** The sandboxes of a test file on `pg`'s server, and the processes it starts otherwise, stopped after each test. */
export function sandboxes(pg: PostgresServer) {
  const children: Child[] = [];
  const stopAll = () => Promise.all(children.splice(0).map((c) => c.stop()));
  afterEach(stopAll);
  /** `c`, stopped after the test. */
  const own = <C extends Child>(c: C): C => {
    children.push(c);
    return c;
  };
  /** A process of its own on `dataDir` (fresh when not given), with these options; stopped after the test. */
  const startProcess = async (options?: object, dataDir = tempDir()): Promise<SandboxProcess> =>
    Object.assign(own(await startChild(dataDir, undefined, options)), { dataDir });
  /**
   * `n` processes on a fresh database: the first migrates it and makes the default account and key; the others
   * start after it — one after another, or with `race` all at once.
   */
  const sandbox = async (n: number, options: object = {}, { race = false } = {}): Promise<Sandbox> => {
    const url = await pg.database();
    const key = randomBytes(32).toString('hex');
    const start = () => startProcess({ database: url, sealingKey: key, ...options });
    const procs = [await start()];
    if (race) procs.push(...(await Promise.all(Array.from({ length: n - 1 }, start))));
    else for (let i = 1; i < n; i++) procs.push(await start());
    return { url, key, procs };
  };
  return { sandbox, startProcess, own, stopAll };
}
