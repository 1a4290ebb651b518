// What a load costs per request, from /proc: the server process's CPU (all its threads, and its HTTP thread
// alone), the whole machine's, the load generator's and a webhook receiver's, and how the HTTP thread shared the
// cores. bench/machine.js prints all of it; bench/run.js divides the server's figures by the bare node:http
// server's, measured the same way in the same run.
import { readFileSync } from 'node:fs';
import { cpuMs, TICK_MS } from './children.js';

/** Busy and total CPU ms of all cores so far. */
function machineMs() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: (total - f[3] - f[4]) * TICK_MS, total: total * TICK_MS };
}

/** ns the thread `pid`'s main thread has run, and waited runnable for a core. */
function schedNs(pid) {
  const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
  return { run, wait };
}

/**
 * Runs `run` (a load: load.js's result), then `after` (waits for the work the load left behind), measuring the
 * server `serverPid` and the machine. Returns the load's own figures (rps, p99_ms, statuses…) and, in µs of CPU
 * per request: `server` (the whole process, every thread), `main` (its HTTP thread), `machine` (all cores, busy),
 * `gen` (the load generator), `rx` (the receiver `receiverPid`); in % of the load's wall time: `onCpu` and
 * `runnable` (the HTTP thread ran, waited for a core), `idle` (the machine's CPU no one used).
 */
export async function measure(serverPid, run, { after, receiverPid } = {}) {
  const m0 = machineMs();
  const s0 = cpuMs(serverPid);
  const t0 = cpuMs(serverPid, true);
  const r0 = receiverPid ? cpuMs(receiverPid) : 0;
  const q0 = schedNs(serverPid);
  const w0 = performance.now();
  const out = run();
  const q1 = schedNs(serverPid);
  const w1 = performance.now();
  if (after) await after();
  const m1 = machineMs();
  const per = (ms) => (ms * 1000) / out.requests;
  const wallNs = (w1 - w0) * 1e6;
  return {
    ...out,
    machine: per(m1.busy - m0.busy),
    server: per(cpuMs(serverPid) - s0),
    main: per(cpuMs(serverPid, true) - t0),
    gen: per(out.cpu_ms),
    rx: receiverPid ? per(cpuMs(receiverPid) - r0) : 0,
    onCpu: (100 * (q1.run - q0.run)) / wallNs,
    runnable: (100 * (q1.wait - q0.wait)) / wallNs,
    idle: 100 * (1 - (m1.busy - m0.busy) / (m1.total - m0.total)),
  };
}
