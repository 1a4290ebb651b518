#!/usr/bin/env node
// The real server for benchmarks: a fresh data directory, limits raised so they never interfere.
import { startServer } from '../dist/index.js';

const dataDir = process.argv[2];
const s = await startServer({ port: 0, dataDir, rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 } });
process.stdout.write(JSON.stringify({ baseUrl: s.baseUrl, apiKey: s.apiKey, pid: process.pid }) + '\n');
process.on('SIGTERM', () => void s.close().then(() => process.exit(0)));
