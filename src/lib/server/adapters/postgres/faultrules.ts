// Fault rules shared by the server processes of one database (docs/api.md "Fault injection", "What the server needs of
// PostgreSQL"): a rule added over the API is a row of `fault_rules`, and its counts are the row's, so a count is used
// up once across processes. Server-wide rules (`--faults`) stay in each process's memory, as on SQLite.
//
// Each process keeps the definitions in memory, read again when the change mark moves (adding or deleting a rule
// moves it, `moveChangeMark`, in the same transaction). A request that may match pays one UPDATE per candidate rule,
// which counts the match and takes the fault in one statement (`… WHERE injected < count RETURNING …`: two processes
// never both take a rule's last injection).
import { AsyncResource } from 'node:async_hooks';
import type { Fault, FaultRule, FaultRuleBody } from '../../../contract/faults.js';
import { parseFault } from '../../../contract/faults.js';
import type { ChangeWatch } from '../../store/changes.js';
import {
  compileRule,
  FaultRules,
  globRe,
  matchesDelivery,
  matchesRequest,
  RULES_PATH,
  view,
  type FaultRulePort,
  type Removal,
  type Rule,
} from '../../http/faultrules.js';
import type { PostgresDatabase } from './db.js';
import { moveChangeMark } from './core.js';
import { pgQuery } from './query.js';

interface RuleRow {
  seq: number;
  account_id: string;
  target: 'request' | 'webhook';
  method: string;
  path: string | null;
  endpoint: string | null;
  fault: string;
  rate: number;
  count: number | null;
  matched: number;
  injected: number;
}

const COLUMNS = 'seq, account_id, target, method, path, endpoint, fault, rate, count, matched, injected';

/** A rule's id: `flt_` and its row's number (the database's, so ids never repeat across processes). */
const idOf = (seq: number) => `flt_${seq}`;

function ruleOf(r: RuleRow): Rule {
  return {
    id: idOf(r.seq),
    accountId: r.account_id,
    target: r.target,
    method: r.method,
    path: r.path,
    pathRe: r.path === null ? undefined : globRe(r.path),
    endpoint: r.endpoint,
    fault: parseFault(r.fault, r.target),
    rate: r.rate,
    count: r.count,
    matched: r.matched,
    injected: r.injected,
  };
}

/**
 * The match counted and, when it is the rule's turn, the fault taken — in one statement, on the row's lock, outside any
 * transaction (READ COMMITTED: a second process waiting on the row reads it again once the first has committed). No
 * row: the rule is spent (or gone).
 */
const TAKE = `UPDATE fault_rules
  SET matched = matched + 1,
      injected = injected + CASE WHEN floor((matched + 1) * rate + 1e-9) <> floor(matched * rate + 1e-9) THEN 1 ELSE 0 END
  WHERE seq = $1 AND (count IS NULL OR injected < count)
  RETURNING injected, floor(matched * rate + 1e-9) <> floor((matched - 1) * rate + 1e-9) AS hit`;

export class SharedFaultRules implements FaultRulePort {
  /** Server-wide rules: this process's own (from its `--faults`), ids `flt_s1`, `flt_s2`… */
  private readonly local = new FaultRules('flt_s');
  /** The accounts' unspent rules as last read (their definitions; the counts are the rows'), oldest first. */
  private byAccount = new Map<string, Rule[]>();
  /** Rules found spent since the last read: never matched again (a count only grows). */
  private readonly spentRules = new Set<string>();
  /** Whether the rules must be read again before they are matched (at start, and when the change mark moved). */
  private stale = true;
  private reading: Promise<void> | undefined;
  /** The change watch whose moves this store follows (a restore makes a new one). */
  private watched: ChangeWatch | undefined;
  /** Runs a query outside the caller's transaction (on the pool): the context this store was made in. */
  private readonly outside = AsyncResource.bind(<T>(fn: () => T): T => fn());

  constructor(
    private readonly store: PostgresDatabase,
    /** The services' change watch (the one authentication looks at), as it is now. */
    private readonly changes: () => ChangeWatch,
  ) {}

  get active(): boolean {
    this.follow();
    return this.stale || this.local.active || this.byAccount.size > 0;
  }

  /** Listens to the services' change watch (again, after a restore made a new one). */
  private follow(): void {
    const changes = this.changes();
    if (changes === this.watched) return;
    this.watched = changes;
    this.stale = true;
    changes.onChange(() => {
      if (this.watched === changes) this.stale = true;
    });
  }

  /** Reads the accounts' unspent rules again, if they may have changed. */
  private fresh(): Promise<void> | undefined {
    this.follow();
    if (!this.stale) return this.reading;
    this.stale = false;
    const reading = this.outside(() =>
      pgQuery<RuleRow>(
        this.store.current(),
        `SELECT ${COLUMNS} FROM fault_rules WHERE count IS NULL OR injected < count ORDER BY seq`,
        [],
      ),
    ).then(
      (rows) => {
        const byAccount = new Map<string, Rule[]>();
        for (const row of rows) {
          let list = byAccount.get(row.account_id);
          if (!list) byAccount.set(row.account_id, (list = []));
          list.push(ruleOf(row));
        }
        this.byAccount = byAccount;
        this.spentRules.clear();
      },
      (err: unknown) => {
        this.stale = true;
        throw err;
      },
    );
    this.reading = reading.finally(() => {
      if (this.reading === reading) this.reading = undefined;
    });
    return this.reading;
  }

  async add(
    accountId: string,
    body: FaultRuleBody,
    checkEndpoint?: (id: string) => Promise<unknown>,
  ): Promise<FaultRule> {
    if (!accountId) return this.local.add(accountId, body, checkEndpoint);
    const r = await compileRule(accountId, body, checkEndpoint);
    const [row] = await pgQuery<RuleRow>(
      this.store.current(),
      `INSERT INTO fault_rules (account_id, target, method, path, endpoint, fault, rate, count) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [accountId, r.target, r.method, r.path, r.endpoint, r.fault.text, r.rate, r.count] as never[],
    );
    await this.changed();
    return view(ruleOf(row!));
  }

  /**
   * Rules were added or deleted in the caller's transaction: the change mark moves with its COMMIT, and every process
   * (this one too) reads them again at its next look.
   */
  private changed(): Promise<void> {
    return moveChangeMark(this.store);
  }

  async list(accountId: string): Promise<FaultRule[]> {
    const rows = await pgQuery<RuleRow>(
      this.store.current(),
      `SELECT ${COLUMNS} FROM fault_rules WHERE account_id = $1 ORDER BY seq`,
      [accountId],
    );
    return [...this.local.list(accountId), ...rows.map((row) => view(ruleOf(row)))];
  }

  async clear(accountId: string): Promise<number> {
    const rows = await pgQuery(this.store.current(), 'DELETE FROM fault_rules WHERE account_id = $1 RETURNING seq', [
      accountId,
    ]);
    if (rows.length > 0) await this.changed();
    return rows.length;
  }

  async remove(accountId: string, id: string): Promise<Removal> {
    const local = this.local.remove(accountId, id);
    if (local !== 'missing') return local;
    const seq = /^flt_([1-9][0-9]{0,15})$/.exec(id)?.[1];
    if (seq === undefined) return 'missing';
    const rows = await pgQuery(
      this.store.current(),
      'DELETE FROM fault_rules WHERE seq = $1 AND account_id = $2 RETURNING seq',
      [Number(seq), accountId],
    );
    if (rows.length === 0) return 'missing';
    await this.changed();
    return 'deleted';
  }

  forRequest(accountId: string, method: string, path: string): Fault | undefined | Promise<Fault | undefined> {
    if (path.startsWith(RULES_PATH)) return undefined;
    return this.take(accountId, (r) => matchesRequest(r, method, path), this.local.forRequest(accountId, method, path));
  }

  forDelivery(accountId: string, endpointId: string): Fault | undefined | Promise<Fault | undefined> {
    return this.take(accountId, (r) => matchesDelivery(r, endpointId), this.local.forDelivery(accountId, endpointId));
  }

  watches(accountId: string, endpointId: string): boolean {
    return (
      this.local.watches(accountId, endpointId) ||
      (this.byAccount.get(accountId)?.some((r) => !this.spentRules.has(r.id) && matchesDelivery(r, endpointId)) ??
        false)
    );
  }

  refresh(): Promise<void> | undefined {
    const looking = this.changes().check();
    return looking ? looking.then(() => this.fresh()) : this.fresh();
  }

  /**
   * The server-wide rules' fault (`local`, matched first as they were added first), else the first of the account's
   * rules that matches and whose turn it is, counted in the database.
   */
  private take(
    accountId: string,
    matches: (r: Rule) => boolean,
    local: Fault | undefined,
  ): Fault | undefined | Promise<Fault | undefined> {
    if (local) return local;
    const reading = this.fresh();
    if (reading) return reading.then(() => this.takeShared(accountId, matches));
    return this.takeShared(accountId, matches);
  }

  private takeShared(accountId: string, matches: (r: Rule) => boolean): Fault | undefined | Promise<Fault | undefined> {
    const candidates = this.byAccount.get(accountId)?.filter((r) => !this.spentRules.has(r.id) && matches(r));
    if (!candidates?.length) return undefined; // the common case: nothing to ask the database
    return this.outside(async () => {
      for (const r of candidates) {
        const [row] = await pgQuery<{ injected: number; hit: boolean }>(this.store.current(), TAKE, [
          Number(r.id.slice(4)),
        ]);
        if (!row) {
          this.spentRules.add(r.id);
          continue;
        }
        if (r.count !== null && row.injected >= r.count) this.spentRules.add(r.id);
        if (row.hit) return r.fault;
      }
      return undefined;
    });
  }
}
