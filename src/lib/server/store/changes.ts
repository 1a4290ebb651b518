// Writes of other connections, noticed: what this process keeps in memory of stored values (the accounts' active
// keys, the accounts' clocks) follows its own writes, and is read again when the store says another connection (a
// CLI command on the same data directory, another server process on the same database) has written since.

/**
 * The store's change mark (AccountsPort.changeMark: SQLite's `PRAGMA data_version`), looked at once per event-loop
 * turn by whoever needs fresh values first (authentication, on every request's path), for all who listen.
 */
export class ChangeWatch {
  private mark: number | undefined;
  private checked = false;
  /** The look of this turn, while it (and the listeners it started) has not settled. */
  private looking: Promise<void> | undefined;
  private readonly listeners: (() => void | Promise<void>)[] = [];

  constructor(private readonly read: () => Promise<number>) {}

  /** Calls `listener` (and waits for it) whenever the mark has moved since the last look. */
  onChange(listener: () => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  /** Takes the mark as it is now, without telling anyone (at start, before the values it guards are read). */
  async start(): Promise<void> {
    this.mark = await this.read();
  }

  /**
   * Looks at the mark, at most once per event-loop turn (outside a transaction a look opens a read of its own: in
   * SQLite a shared-memory lock and unlock; and the requests of one turn arrived together anyway). Returns
   * what to await before the values guarded are used: the look of this turn while it is under way, else nothing.
   */
  check(): Promise<void> | undefined {
    if (this.checked) return this.looking;
    this.checked = true;
    setImmediate(() => (this.checked = false));
    const looking = this.look().finally(() => {
      if (this.looking === looking) this.looking = undefined;
    });
    this.looking = looking;
    return looking;
  }

  private async look(): Promise<void> {
    const mark = await this.read();
    if (mark === this.mark) return;
    this.mark = mark;
    for (const listener of this.listeners) await listener();
  }
}
