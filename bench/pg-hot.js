#!/usr/bin/env node
// `node bench/pg-hot.js`: journal entries between the same two accounts (every request writes the same two rows), at
// saturation (50 connections, 5 s, twice), on a server on a throwaway PostgreSQL cluster (bench/pg-cluster.js): how
// requests that conflict on a hot row fare. Prints req/s, failures and p99 of each load. Run `npm run build` first.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { journalBody, loadPosts, startChild, stopChildren } from './children.js';
import { startCluster } from './pg-cluster.js';
const cluster = await startCluster();
try {
  const admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe('CREATE DATABASE hot');
  await admin.end();
  process.env.BENCH_DATABASE = cluster.url('hot');
  process.env.BENCH_SEALING_KEY = randomBytes(32).toString('hex');
  const { info } = await startChild(join(dirname(fileURLToPath(import.meta.url)), 'serve.js'), [
    mkdtempSync(join(tmpdir(), 'hot-')),
  ]);
  const body = await journalBody(info);
  const auth = { authorization: `Bearer ${info.apiKey}` };
  for (let i = 0; i < 2; i++) {
    const r = loadPosts(info.baseUrl + '/journal-entries', body, auth, 5000);
    console.log(JSON.stringify({ rps: r.rps, errors: r.errors, statuses: r.statuses, p99: r.p99_ms }));
  }
} finally {
  stopChildren();
  cluster.destroy();
}
