// Types of bench/pg-wire.js, for the tests that count statements with it.
export interface StatementProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** The URL of `database` through the proxy. */
  url(database: string, user?: string): string;
  /** Whether the statements sent from now on are kept (from none, at first). */
  counting(yes: boolean): void;
  /** The statements kept since the last take: each one's text and the number of the connection it came on. */
  take(): { text: string; connection: number }[];
  close(): Promise<void>;
}

export function statementProxy(port: number, host?: string): Promise<StatementProxy>;
