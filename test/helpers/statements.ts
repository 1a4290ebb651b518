// The SQL statements a request makes the server run. The test server runs in the test's process, so wrapping
// better-sqlite3's Statement methods sees every statement it runs — and every other statement this process runs
// while `fn` awaits: a server whose statements are counted is started without timers of its own that run some
// (`dueWorkIntervalMs: 0`, and a long `webhooks.pollIntervalMs` where it has endpoints).
import Database from 'better-sqlite3';

export async function statementsRun<T>(fn: () => Promise<T>): Promise<{ result: T; ran: string[] }> {
  const proto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1'));
  const originals = { get: proto.get, all: proto.all, iterate: proto.iterate, run: proto.run };
  const ran: string[] = [];
  for (const m of Object.keys(originals) as (keyof typeof originals)[]) {
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      ran.push(this.source);
      return originals[m].apply(this, args);
    };
  }
  try {
    return { result: await fn(), ran };
  } finally {
    Object.assign(proto, originals);
  }
}
