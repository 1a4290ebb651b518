// A real test-mode server on loopback (port 0), from the built package — the same code the binary runs.
import { startServer, type RunningServer, type ServerOptions } from '../../dist/index.js';
import type { SqliteDatabase } from '../../dist/lib/server/adapters/sqlite/db.js';
import type { ScopedStore } from '../../dist/lib/server/store/scoped.js';
import { tempDir } from './tmp.js';

/** A list answer (`{object: "list"}`): `s.request<List<Customer>>('GET', '/customers')`. */
export type { List } from '../../dist/lib/contract/common.js';
import { responseViolation } from './responses.js';
import { testDatabase, testEngine } from './engine.js';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** The server's store as the SQLite adapter it is (the tests look at rows and background workers directly). */
export const sqliteOf = (s: { server: RunningServer }): SqliteDatabase =>
  (s.server.services.store as ScopedStore).inner as SqliteDatabase;

export interface TestServer {
  server: RunningServer;
  baseUrl: string;
  apiKey: string;
  dataDir: string | null;
  /** A raw HTTP request with the server's API key (override with `key`, or `key: null` for none). */
  request<T = any>(
    method: string,
    path: string,
    opts?: { body?: unknown; rawBody?: string; key?: string | null; headers?: Record<string, string> },
  ): Promise<HttpResult<T>>;
  close(): Promise<void>;
}

export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  let dataDir = options.memory ? undefined : (options.dataDir ?? tempDir());
  if (testEngine() === 'postgres' && options.database === undefined) {
    // PAYORCH_TEST_ENGINE=postgres (./engine.ts): the state in a database of its own; an in-memory server's too
    // (with a data directory for its lock and log, as a server on a database has).
    const db = await testDatabase(dataDir);
    dataDir ??= tempDir();
    options = {
      ...options,
      memory: undefined,
      database: db.url,
      sealingKey: options.seed === undefined ? db.key : undefined,
    };
  }
  const server = await startServer({ port: 0, ...options, dataDir });
  const request: TestServer['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? server.apiKey : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(server.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const violation = responseViolation(method, path, res.status, text);
    if (violation) throw new Error(violation);
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  };
  return {
    server,
    baseUrl: server.baseUrl,
    apiKey: server.apiKey,
    dataDir: server.dataDir,
    request,
    close: () => server.close(),
  };
}
