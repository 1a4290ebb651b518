// The paths and hints the `server` commands print work as printed, from any directory (issue 45, item 5): a
// relative --data-dir is recorded and shown absolute, the "already running" error names the directory to stop, and
// `server --help` describes each of its topics (every topic has a description of its own).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliSlow as runCli } from '../helpers/cli.js';
import { stoppedAfterAll } from '../helpers/processes.js';
import { tempDir } from '../helpers/tmp.js';

const pids = stoppedAfterAll();
const root = new URL('../../', import.meta.url);

/** The `payorch server stop …` a message names, as words (quotes as the shell would take them). */
function stopCommand(text: string): string[] {
  const m = /payorch (server stop[^`]*)/.exec(text);
  expect(m, text).not.toBeNull();
  return [...m![1]!.matchAll(/'([^']*)'|(\S+)/g)].map((w) => w[1] ?? w[2]!);
}

describe('a relative --data-dir', () => {
  it('is recorded absolute: `server status` from another directory prints a stop command that stops it', async () => {
    const home = tempDir();
    const work = join(tempDir(), 'my project');
    const elsewhere = tempDir();
    mkdirSync(work);
    const dir = join(work, 'sandbox-a');
    const started = await runCli(['server', 'start', '--data-dir', 'sandbox-a', '--port', '0', '--detach', '--json'], {
      home,
      cwd: work,
    });
    expect(started.code, started.stderr).toBe(0);
    pids.add(started.json().pid);
    expect(started.json().data_dir).toBe(dir);

    const status = await runCli(['server', 'status', '--json'], { home, cwd: elsewhere });
    const other = status.json().others.find((o: { pid: number }) => o.pid === started.json().pid);
    expect(other).toMatchObject({ data_dir: dir, stop: `payorch server stop --data-dir '${dir}'` });
    const human = await runCli(['server', 'status'], { home, cwd: elsewhere });
    expect(human.stdout).toContain(`  ${dir}  `);

    // a relative --data-dir given to a command elsewhere is taken from there, not from where the server started
    const relative = await runCli(['server', 'status', '--data-dir', 'sandbox-a', '--json'], { home, cwd: elsewhere });
    expect(relative.json()).toMatchObject({ running: false, data_dir: join(elsewhere, 'sandbox-a') });

    const stop = await runCli(stopCommand(other.stop), { home, cwd: elsewhere });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`Stopped the server (pid ${started.json().pid})`);
    const after = await runCli(['server', 'status', '--data-dir', dir, '--json'], { home, cwd: elsewhere });
    expect(after.json().running).toBe(false);
  });

  it('a blank --data-dir is a usage error, not the working directory', async () => {
    const r = await runCli(['server', 'status', '--data-dir', ' ']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--data-dir is blank');
  });
});

describe('"already running"', () => {
  it('names the data directory in its `server stop` when it is not the default one, and that command stops it', async () => {
    const home = tempDir();
    const dir = join(tempDir(), 'sandbox b');
    const started = await runCli(['server', 'start', '--data-dir', dir, '--port', '0', '--detach', '--json'], { home });
    expect(started.code, started.stderr).toBe(0);
    pids.add(started.json().pid);
    const [again, detached] = await Promise.all([
      runCli(['server', 'start', '--data-dir', dir, '--port', '0'], { home }),
      runCli(['server', 'start', '--data-dir', dir, '--port', '0', '--detach'], { home }),
    ]);
    for (const r of [again, detached]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`Stop it with \`payorch server stop --data-dir '${dir}'\``);
    }
    const stop = await runCli(stopCommand(again.stderr), { home });
    expect(stop.stdout).toContain(`Stopped the server (pid ${started.json().pid})`);
  });

  it('says plain `payorch server stop` for the default data directory', async () => {
    const home = tempDir();
    const started = await runCli(['server', 'start', '--port', '0', '--detach', '--json'], { home });
    expect(started.code, started.stderr).toBe(0);
    pids.add(started.json().pid);
    const again = await runCli(['server', 'start', '--port', '0'], { home });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('Stop it with `payorch server stop` or choose another --data-dir.');
    expect((await runCli(stopCommand(again.stderr), { home })).code).toBe(0);
  });
});

describe('help of the server commands', () => {
  it('`payorch server --help` gives each topic its own description, as package.json has it for every topic', async () => {
    const pjson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
    const manifest = JSON.parse(readFileSync(new URL('oclif.manifest.json', root), 'utf8'));
    const topics = new Set<string>();
    for (const id of Object.keys(manifest.commands)) {
      const words = id.split(':');
      for (let i = 1; i < words.length; i++) topics.add(words.slice(0, i).join(':'));
    }
    for (const topic of topics) expect(pjson.oclif.topics[topic]?.description, topic).toBeTruthy();

    const help = await runCli(['server', '--help']);
    expect(help.code).toBe(0);
    // the TOPICS section, its wrapped lines joined
    const section = /\nTOPICS\n([\s\S]*?)\n\n/.exec(help.stdout)![1]!.replace(/\s+/g, ' ');
    for (const topic of ['snapshot', 'faults', 'keys'])
      expect(section).toContain(`server ${topic} ${pjson.oclif.topics[`server:${topic}`].description}`);
    expect(section).not.toContain('Delete snapshot NAME');
    expect(section).not.toContain('Add a fault rule');
  });

  it('`server snapshot save --help` says where a snapshot is kept on SQLite and on PostgreSQL', async () => {
    const help = await runCli(['server', 'snapshot', 'save', '--help']);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('On SQLite (the default) it is snapshots/NAME.sqlite in the data directory');
    expect(text).toContain('On a shared PostgreSQL database (`server start --database`) it is kept in that database');
  });
});
