// Crash safety (issue 6): 50-way concurrent writes against the real server in a child process, `kill -9` mid-load,
// restart on the same data directory, then check what survived. Shared by test/reliability/crash.test.ts (one cycle)
// and test/soak/crash.soak.test.ts (many cycles on one directory).
//
// Writes: create-session (external_id = the key), confirm-payment of those sessions (client secret), journal entries (description = the key; funding → wallet, and
// wallet → wallet transfers that may be refused for insufficient balance) and holds (description = the key), each
// with its own Idempotency-Key. After the restart:
//  - every acknowledged answer (2xx, and the 4xx outcomes the contract saves) replays byte-identically under its key,
//    and every acknowledged object reads back with the acknowledged content;
//  - every request that was in flight, retried twice with its key, has exactly one effect (sessions counted through
//    the external_id filter, entries and holds by description);
//  - nothing half-written: every entry balanced with ≥ 2 lines, balances = sums of entries, pending = active holds,
//    per-currency debits = credits, and list total_count (the store-kept counters) = the rows a full listing returns.
import { startChild, type Child } from './child.js';
import { ledgerViolations, listAll, requester, type Requester } from './health.js';

export interface Op {
  key: string;
  kind: 'session' | 'journal' | 'hold' | 'confirm';
  /** Bearer credential when not the API key (confirm: the session's client secret). */
  auth?: string;
  method: 'POST';
  path: string;
  body: Record<string, unknown>;
  /** The answer, when one arrived before the kill. */
  answer?: { status: number; text: string };
  /** Set when no answer arrived (in flight at the kill, or sent after it). */
  error?: string;
}

export interface Setup {
  funding: string;
  wallets: string[];
}

async function ok(req: Requester, method: string, path: string, body?: unknown): Promise<any> {
  const r = await req(method, path, { body });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

export async function setupLedger(req: Requester, wallets = 10): Promise<Setup> {
  const funding = await ok(req, 'POST', '/ledger-accounts', {
    name: 'Funding',
    account_type: 'asset',
    currency: 'usd',
    is_system_account: true,
  });
  const ids: string[] = [];
  for (let i = 0; i < wallets; i++) {
    const w = await ok(req, 'POST', '/ledger-accounts', {
      name: `Wallet ${i}`,
      account_type: 'liability',
      currency: 'usd',
    });
    await ok(req, 'POST', '/journal-entries', {
      description: `seed ${i}`,
      entries: [
        { account_id: funding.id, direction: 'debit', amount: 5_000 },
        { account_id: w.id, direction: 'credit', amount: 5_000 },
      ],
    });
    ids.push(w.id);
  }
  return { funding: funding.id, wallets: ids };
}

function makeOp(setup: Setup, cycle: number, worker: number, n: number): Op {
  const key = `crash-${cycle}-${worker}-${n}`;
  const w = setup.wallets;
  const a = w[(worker + n) % w.length]!;
  const b = w[(worker + n + 1) % w.length]!;
  const amount = 1 + ((worker * 31 + n * 17) % 400);
  switch ((worker + n) % 4) {
    case 0:
      return {
        key,
        kind: 'session',
        method: 'POST',
        path: '/create-session',
        body: { amount: 100 + n, currency: 'usd', external_id: key, metadata: { key } },
      };
    case 1:
      return {
        key,
        kind: 'journal',
        method: 'POST',
        path: '/journal-entries',
        body: {
          description: key,
          entries: [
            { account_id: setup.funding, direction: 'debit', amount },
            { account_id: a, direction: 'credit', amount },
          ],
        },
      };
    case 2:
      // may be refused (insufficient_available_balance): a committed outcome is as good as a success here
      return {
        key,
        kind: 'journal',
        method: 'POST',
        path: '/journal-entries',
        body: {
          description: key,
          entries: [
            { account_id: a, direction: 'debit', amount: amount * 3 },
            { account_id: b, direction: 'credit', amount: amount * 3 },
          ],
        },
      };
    default:
      return {
        key,
        kind: 'hold',
        method: 'POST',
        path: `/ledger-accounts/${a}/holds`,
        body: { amount, description: key },
      };
  }
}

async function sendOp(
  baseUrl: string,
  apiKey: string,
  op: Op,
): Promise<{ status: number; text: string; replayed: boolean }> {
  const res = await fetch(baseUrl + op.path, {
    method: op.method,
    headers: {
      authorization: `Bearer ${op.auth ?? apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': op.key,
    },
    body: JSON.stringify(op.body),
  });
  return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') === 'true' };
}

/** Runs `workers` concurrent writers until `ackTarget` answers arrived, then SIGKILLs the child mid-load. */
export async function loadAndKill(
  child: Child,
  setup: Setup,
  cycle: number,
  opts: { workers: number; ackTarget: number },
): Promise<Op[]> {
  const ops: Op[] = [];
  let acked = 0;
  let killed: Promise<void> | undefined;
  const worker = async (i: number) => {
    let open: { id: string; client_secret: string } | undefined; // a session this worker created, to confirm next
    for (let n = 0; ; n++) {
      const op: Op = open
        ? {
            key: `crash-${cycle}-${i}-${n}`,
            kind: 'confirm',
            method: 'POST',
            path: `/confirm-payment/${open.id}`,
            body: { token_id: 'tok_visa' },
            auth: open.client_secret,
          }
        : makeOp(setup, cycle, i, n);
      open = undefined;
      ops.push(op);
      try {
        const r = await sendOp(child.baseUrl, child.apiKey, op);
        op.answer = { status: r.status, text: r.text };
        if (op.kind === 'session' && r.status === 201) open = JSON.parse(r.text);
        if (++acked >= opts.ackTarget) killed ??= child.kill9();
      } catch (err) {
        op.error = (err as Error).message;
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, (_, i) => worker(i)));
  await killed;
  return ops;
}

const withoutRequestId = (text: string) => text.replace(/"request_id":"req_[0-9A-Za-z]+"/, '"request_id":"-"');

/** Everything wrong after the restart ([] when all holds). `previous` are ops of earlier cycles on the same directory. */
export async function verifyAfterRestart(child: Child, setup: Setup, ops: Op[]): Promise<string[]> {
  const out: string[] = [];
  const req = requester(child.baseUrl, child.apiKey);
  const final = new Map<string, { status: number; text: string }>();

  for (const op of ops) {
    if (op.answer) {
      // 1. The acknowledged answer replays identically (status and body; an error's request_id is the new request's).
      const again = await sendOp(child.baseUrl, child.apiKey, op);
      if (again.status >= 500) out.push(`${op.key}: replay answered ${again.status}`);
      const saved = op.answer.status < 300 || [402, 404, 409].includes(op.answer.status);
      if (saved) {
        if (!again.replayed)
          out.push(
            `${op.key}: acknowledged ${op.answer.status} but the retry was not a replay (${again.status} ${again.text.slice(0, 200)})`,
          );
        if (again.status !== op.answer.status || withoutRequestId(again.text) !== withoutRequestId(op.answer.text)) {
          out.push(
            `${op.key}: replay differs: acknowledged ${op.answer.status} ${op.answer.text.slice(0, 200)} / now ${again.status} ${again.text.slice(0, 200)}`,
          );
        }
      }
      final.set(op.key, op.answer);
      // 2. The acknowledged object reads back as acknowledged.
      if (op.answer.status < 300) {
        const acked = JSON.parse(op.answer.text);
        const path = {
          session: `/sessions/${acked.id}`,
          journal: `/journal-entries/${acked.id}`,
          hold: `/holds/${acked.id}`,
          confirm: `/payments/${acked.id}`,
        }[op.kind];
        const got = await req('GET', path);
        if (got.status !== 200)
          out.push(`${op.key}: acknowledged ${acked.id} is missing after the restart (${got.status})`);
        else if (op.kind === 'session') {
          // not status: a later confirm moves it
          for (const f of ['id', 'amount', 'currency', 'external_id', 'metadata', 'created_at']) {
            if (JSON.stringify(got.body[f]) !== JSON.stringify(acked[f]))
              out.push(
                `${op.key}: session ${f} ${JSON.stringify(got.body[f])} ≠ acknowledged ${JSON.stringify(acked[f])}`,
              );
          }
        } else if (got.text !== op.answer.text && JSON.stringify(got.body) !== JSON.stringify(acked)) {
          out.push(
            `${op.key}: ${acked.id} differs from the acknowledged object: ${got.text.slice(0, 300)} / ${op.answer.text.slice(0, 300)}`,
          );
        }
      }
    } else {
      // 3. In flight at the kill: retry twice with the same key; the second must replay the first.
      const first = await sendOp(child.baseUrl, child.apiKey, op);
      const second = await sendOp(child.baseUrl, child.apiKey, op);
      if (first.status >= 500 || (first.status === 409 && /idempotency_key_in_use/.test(first.text)))
        out.push(`${op.key}: retry after the restart answered ${first.status} ${first.text.slice(0, 200)}`);
      if (
        second.status !== first.status ||
        withoutRequestId(second.text) !== withoutRequestId(first.text) ||
        !second.replayed
      ) {
        out.push(`${op.key}: second retry did not replay the first (${first.status} → ${second.status})`);
      }
      final.set(op.key, first);
    }
  }

  // 4. Exactly one effect per key: one object for a 2xx outcome, none for a refusal.
  const entries = await listAll(req, '/journal-entries');
  const entryCount = new Map<string, number>();
  for (const e of entries) entryCount.set(e.description, (entryCount.get(e.description) ?? 0) + 1);
  const holdCount = new Map<string, number>();
  for (const w of setup.wallets)
    for (const h of await listAll(req, `/ledger-accounts/${w}/holds`))
      holdCount.set(h.description, (holdCount.get(h.description) ?? 0) + 1);
  for (const op of ops) {
    const f = final.get(op.key)!;
    const want = f.status < 300 ? 1 : 0;
    let have: number;
    if (op.kind === 'session')
      have = (await req('GET', `/sessions?external_id=${encodeURIComponent(op.key)}&limit=1`)).body.total_count;
    else if (op.kind === 'confirm') {
      const sessionId = op.path.split('/').pop()!;
      have = (await req('GET', `/payments?session_id=${sessionId}&limit=1`)).body.total_count;
      // the session agrees with its payment
      const status = (await req('GET', `/sessions/${sessionId}`)).body.status;
      if (f.status === 200 && status !== 'succeeded')
        out.push(`${op.key}: session ${sessionId} is ${status} after a captured payment`);
    } else if (op.kind === 'journal') have = entryCount.get(op.key) ?? 0;
    else have = holdCount.get(op.key) ?? 0;
    if (have !== want) out.push(`${op.key}: ${have} ${op.kind} object(s) for a ${f.status} outcome (want ${want})`);
  }

  // 5. Nothing half-written.
  out.push(...(await ledgerViolations(req)));
  for (const path of ['/sessions', '/payments', '/journal-entries', '/ledger-accounts', '/events']) {
    const all = await listAll(req, path);
    const head = await req('GET', `${path}?limit=1`);
    if (head.body.total_count !== all.length)
      out.push(`${path}: total_count ${head.body.total_count} ≠ ${all.length} rows listed`);
  }
  return out;
}

/** `cycles` rounds of load → kill -9 → restart → verify on one data directory. */
export async function crashCycles(
  dataDir: string,
  cycles: number,
  opts: { workers?: number; ackTarget?: () => number } = {},
): Promise<{ failures: string[]; acked: number; inflight: number }> {
  let child = await startChild(dataDir);
  const failures: string[] = [];
  let acked = 0;
  let inflight = 0;
  try {
    const setup = await setupLedger(requester(child.baseUrl, child.apiKey));
    for (let cycle = 0; cycle < cycles; cycle++) {
      const ops = await loadAndKill(child, setup, cycle, {
        workers: opts.workers ?? 50,
        ackTarget: opts.ackTarget?.() ?? 150,
      });
      acked += ops.filter((o) => o.answer).length;
      inflight += ops.filter((o) => !o.answer).length;
      child = await startChild(dataDir);
      failures.push(...(await verifyAfterRestart(child, setup, ops)).map((f) => `cycle ${cycle}: ${f}`));
      if (failures.length) break;
    }
  } finally {
    await child.stop();
  }
  return { failures, acked, inflight };
}
