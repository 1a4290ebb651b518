#!/usr/bin/env node
// The real server for benchmarks: a fresh data directory, limits raised so they never interfere. With
// BENCH_DATABASE (a PostgreSQL URL) and BENCH_SEALING_KEY in the environment, its state is in that database instead
// (the data directory then holds only this process's own files): run several on one database for one sandbox.
import { startServer } from '../dist/index.js';

const dataDir = process.argv[2];
const database = process.env.BENCH_DATABASE || undefined;
const s = await startServer({
  port: 0,
  dataDir,
  ...(database && { database, sealingKey: process.env.BENCH_SEALING_KEY }),
  rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 },
});
process.stdout.write(JSON.stringify({ baseUrl: s.baseUrl, apiKey: s.apiKey, pid: process.pid }) + '\n');
process.on('SIGTERM', () => void s.close().then(() => process.exit(0)));
