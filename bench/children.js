// What the bench scripts share: child processes that print one JSON line once they listen (serve.js,
// bare-server.js, receiver.js), their CPU time from /proc, and a median.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Every child started here, to stop at the end (stopChildren). */
export const children = [];

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** ms per clock tick of /proc's CPU counters (USER_HZ). */
export const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/** CPU ms used so far by process `pid` (utime + stime), or by its main thread alone (`mainThread`). */
export function cpuMs(pid, mainThread = false) {
  const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

/** Starts `node [flags] script [args]` and resolves with the child and the JSON line it prints first. */
export function startChild(script, args = [], flags = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, info: JSON.parse(out.split('\n')[0]) });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

export function stopChildren() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
}
