#!/usr/bin/env node
// The real server in a child process for crash tests: `node child-server.mjs DATA_DIR [limits-json [options-json]]` prints one line
// {baseUrl, apiKey, pid} once it listens. Killed with SIGKILL by the tests; SIGTERM closes it cleanly.
import { startServer } from '../../dist/index.js';

const dataDir = process.argv[2];
const limits = process.argv[3] ? JSON.parse(process.argv[3]) : { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 };
const options = process.argv[4] ? JSON.parse(process.argv[4]) : {};
const s = await startServer({ port: 0, dataDir, rateLimits: limits, ...options });
process.stdout.write(JSON.stringify({ baseUrl: s.baseUrl, apiKey: s.apiKey, pid: process.pid }) + '\n');
process.on('SIGTERM', () => void s.close().then(() => process.exit(0)));
