import { Flags } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { dataDirFlag, listServers, serverHomeOf, shellWord, stopProcess } from '../../lib/cli/server.js';
import { defaultDataDir, readLock } from '../../lib/server/lock.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';

export default class ServerStop extends BaseCommand {
  static override summary = 'Stop a server payorch started (SIGTERM, then wait): the one on the data directory, or by pid';
  static override description =
    'Without flags: the server on the default data directory — or, when none runs there and payorch started exactly one other server (--memory, another --data-dir), that one. `server status` lists them all.';
  static override examples = ['<%= config.bin %> server stop', '<%= config.bin %> server stop --data-dir ./data', '<%= config.bin %> server stop --pid 12345', '<%= config.bin %> server stop --all'];
  static override flags = {
    'data-dir': dataDirFlag,
    pid: Flags.integer({ description: 'Stop the server payorch started with this process id (see `server status`)', min: 1, exclusive: ['data-dir', 'all'] }),
    all: Flags.boolean({ description: 'Stop every server payorch started', exclusive: ['data-dir'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerStop);
    const servers = listServers();
    const dir = flags['data-dir'] ?? defaultDataDir();
    let targets: { pid: number; proc_start?: string | null; base_url: string | null; data_dir: string | null }[];
    if (flags.all) targets = servers;
    else if (flags.pid !== undefined) {
      const found = servers.find((s) => s.pid === flags.pid);
      if (!found) throw new CliError(notOurs(flags.pid, servers.map((s) => s.pid)), EXIT.USAGE, 'not_running');
      targets = [found];
    } else {
      const lock = readLock(dir);
      const others = servers.filter((s) => s.data_dir !== dir);
      if (lock) targets = [{ ...lock, data_dir: dir }];
      else if (!flags['data-dir'] && others.length === 1) targets = others;
      else if (!flags['data-dir'] && others.length > 1) {
        throw new CliError(`No server runs on ${dir}; payorch started ${others.length} others: ${others.map((s) => `pid ${s.pid} (${s.base_url})`).join(', ')}. Say which: --pid N, or --all.`, EXIT.USAGE, 'ambiguous');
      } else targets = [];
    }
    if (targets.length === 0) {
      this.print({ stopped: false, running: false, data_dir: dir }, () => `No server is running on ${dir}.`);
      return;
    }
    const results: { pid: number; base_url: string | null; data_dir: string | null }[] = [];
    for (const t of targets) {
      const outcome = await stopProcess(t);
      if (outcome === 'timeout') throw new CliError(`The server (pid ${t.pid}) did not stop within 10 s.`, EXIT.API, 'stop_timeout');
      results.push({ pid: t.pid, base_url: t.base_url, data_dir: t.data_dir });
    }
    const where = (t: (typeof results)[number]) => `${t.base_url ?? t.data_dir}${t.data_dir === null ? ', in memory' : ''}`;
    if (results.length === 1 && !flags.all) this.print({ stopped: true, ...results[0] }, () => `Stopped the server (pid ${results[0].pid}) on ${where(results[0])}.`);
    else this.print({ stopped: results.length > 0, servers: results }, () => (results.length ? results.map((t) => `Stopped the server (pid ${t.pid}) on ${where(t)}.`).join('\n') : 'No server started by payorch is running.'));
  }
}


/** Why `--pid` names no server of this PAYORCH_HOME, and where it was started when payorch started it elsewhere. */
function notOurs(pid: number, running: number[]): string {
  const home = serverHomeOf(pid);
  if (home !== undefined) {
    const from = home === null ? 'without PAYORCH_HOME' : `with PAYORCH_HOME=${home}`;
    const command = `${home === null ? 'env -u PAYORCH_HOME' : `PAYORCH_HOME=${shellWord(home)}`} payorch server stop --pid ${pid}`;
    return `pid ${pid} is a payorch server started ${from}, which is where its record is; nothing was stopped. Stop it from there: \`${command}\`.`;
  }
  return `No server started by payorch runs with pid ${pid}${running.length ? ` (running: ${running.join(', ')})` : ''}; nothing was stopped.`;
}
