// Deterministic mode (`--seed N`, `startServer({ seed })`; docs/api.md "Deterministic mode"): whatever a client
// sees that would come from the CSPRNG or the machine's clock comes from the seed.
//
// - Ids, keys and secrets: one HMAC-SHA256 counter stream (`ids`) whose position is written with each draw, in the
//   drawing request's transaction, so a rollback or a group-commit re-run (store/seam.ts `grouped`) gives the draws
//   back and a restart continues the stream. Hence a seeded store must run transactions one at a time
//   (Store.serial; store/scoped.ts `inTurn` on a concurrent engine; `open` refuses others), else draws interleave
//   and a rollback rewinds under another request (ids drawn twice); and the engine's `cell` must answer at once,
//   as the open transaction (or its rollback) left it.
// - Request ids: from the method, URL and count of such requests this start (outside any transaction).
// - Background work's ids (a delivery): derived from what it is about (ids.ts newIdFor), not drawn.
// - The sealing key is derived from the seed (whoever knows the seed knows it); the clock starts at SEEDED_EPOCH_MS.
import { createHmac } from 'node:crypto';
import type { Store } from './store/seam.js';
import type { ServerRecords } from './adapters/engine.js';
import type { IdStream, SeededIds } from './ids.js';
import { isLiveKey } from '../contract/keys.js';

/** Where a seeded server's clock starts, for every seed: 2025-01-01T00:00:00.000Z. */
export const SEEDED_EPOCH_MS = Date.UTC(2025, 0, 1);

/** A start the seed cannot be used for (a live-looking configuration, a data directory made otherwise). */
export class SeedError extends Error {
  readonly code = 'seed_refused';
}

/** What `startServer({ seed })` takes: a whole number (the CLI's `--seed N`) or any text. */
export type SeedValue = number | string;

const STREAM_KEY = 'seed_stream';
/** Request kinds (method and URL) counted for request ids before the count starts over (docs/api.md). */
const MAX_REQUEST_KINDS = 100_000;

/** Blocks of HMAC-SHA256(key, label ‖ counter), handed out byte by byte from `position`. */
class CounterStream implements IdStream {
  protected position = 0;
  protected ticks = 0;
  private block = -1;
  private current = Buffer.alloc(0);

  constructor(
    private readonly key: Buffer,
    private readonly label: string,
  ) {}

  bytes(n: number): Uint8Array {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) {
      const b = Math.floor(this.position / 32);
      if (b !== this.block) {
        const counter = Buffer.alloc(8);
        counter.writeBigUInt64BE(BigInt(b));
        this.current = createHmac('sha256', this.key).update(this.label).update(counter).digest();
        this.block = b;
      }
      out[i] = this.current[this.position % 32]!;
      this.position++;
    }
    this.moved();
    return out;
  }

  derive(subject: string): Uint8Array {
    const part = (n: number) => createHmac('sha256', this.key).update(`derive ${n} ${subject}`).digest();
    return Buffer.concat([part(0), part(1)]);
  }

  tick(): number {
    this.ticks++;
    this.moved();
    return SEEDED_EPOCH_MS + this.ticks;
  }

  protected moved(): void {}
}

/**
 * The ids stream, its position kept in the database with what was drawn from it (see the top of this file): read
 * and written at once (ServerRecords.cell), since a draw happens inside any domain call.
 */
class StoredStream extends CounterStream {
  private readonly stored: ReturnType<ServerRecords['cell']>;

  constructor(store: Store, records: ServerRecords, key: Buffer) {
    super(key, 'ids');
    this.stored = records.cell(STREAM_KEY);
    this.load();
    store.onRollback(() => this.load());
  }

  private load(): void {
    const [position, ticks] = String(this.stored.get() ?? '0:0')
      .split(':')
      .map(Number);
    this.position = position ?? 0;
    this.ticks = ticks ?? 0;
  }

  protected override moved(): void {
    try {
      this.stored.change(`${this.position}:${this.ticks}`);
    } catch {
      // A read-only transaction (a GET that drew a value): kept in memory; the next write stores the position.
    }
  }
}

export class Seed {
  private readonly key: Buffer;
  /** Names the seed in the data directory (meta `seed`) without giving it away. */
  readonly fingerprint: string;

  constructor(seed: SeedValue) {
    const text = String(seed);
    if (typeof seed === 'number' ? !Number.isSafeInteger(seed) || seed < 0 : text.length === 0 || text.length > 256) {
      throw new SeedError(
        `The seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, or a text of 1 to 256 characters (got ${JSON.stringify(seed)}).`,
      );
    }
    this.key = createHmac('sha256', 'payorch seed v1').update(text).digest();
    this.fingerprint = this.derive('fingerprint').subarray(0, 12).toString('hex');
  }

  private derive(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(purpose).digest();
  }

  /** The key that seals secrets at rest (crypto.ts Sealer): derived, so that derived client secrets repeat too. */
  sealingKey(): Buffer {
    return this.derive('sealing key');
  }

  /**
   * Binds the seed to a just-opened store: a fresh one is marked as this seed's; one marked with this seed continues
   * its stream; anything else is refused (the seed applies to a fresh data directory). Returns the streams.
   * `records`: the store's own records (adapters/engine.ts). `database`: the shared database it is (its URL without
   * the password), for the refusals' words; a data directory's otherwise.
   */
  async open(store: Store, records: ServerRecords, database?: string): Promise<SeededIds> {
    if (!store.serial)
      throw new Error(
        'A seeded server runs one transaction at a time: open its store serialized (new ScopedStore(store, { inTurn: true })).',
      );
    const starts = await records.exclusive(async () => {
      const marked = await records.get('seed');
      if (marked === undefined) {
        if (await records.hasAccounts())
          throw new SeedError(
            database
              ? `The database ${database} already holds data made without --seed, and other processes may serve it: a seeded server needs a fresh database of its own. Use another database.`
              : 'This data directory already holds data made without --seed: a seed applies to a fresh data directory. Use another --data-dir (or --memory), or `payorch server reset` first.',
          );
        await records.put('seed', this.fingerprint);
        await records.put(STREAM_KEY, '0:0');
        await records.put('seed_starts', '0');
      } else if (marked !== this.fingerprint) {
        throw new SeedError(
          database
            ? `The database ${database} was made with another seed. Start with the same --seed, or use a fresh database.`
            : 'This data directory was made with another seed. Start it with the same --seed, or use a fresh data directory.',
        );
      }
      const n = Number((await records.get('seed_starts')) ?? 0) + 1;
      await records.change('seed_starts', String(n));
      return n;
    });
    const ids = new StoredStream(store, records, this.key);
    const seen = new Map<string, number>();
    return {
      ids,
      requestBytes: (method, url) => {
        const kind = `${method} ${url}`;
        const n = seen.get(kind) ?? 0;
        if (seen.size >= MAX_REQUEST_KINDS && n === 0) seen.clear(); // a bound on memory for long runs (documented)
        seen.set(kind, n + 1);
        return ids.derive(`request ${starts} ${n} ${kind}`);
      },
    };
  }
}

/** Whether the store was made by a seeded server (its record `seed`): it is then opened only with its seed. */
export function seededStore(records: ServerRecords): Promise<boolean> {
  return records.has('seed');
}

/**
 * Refuses a seed beside a live-looking configuration: a seeded server's keys and secrets are predictable by anyone
 * who knows the seed, which is only ever right for tests (the CLI also checks the active profile's key).
 */
export function refuseLiveWithSeed(env: NodeJS.ProcessEnv = process.env): void {
  if (isLiveKey(env.PAYORCH_API_KEY)) {
    throw new SeedError(
      'Refusing --seed: PAYORCH_API_KEY holds a live key (sk_live_/rk_live_). A seeded server makes predictable keys and secrets, for tests only; unset PAYORCH_API_KEY or use a test key.',
    );
  }
}
