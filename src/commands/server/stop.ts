import { Flags } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { dataDirFlag, envServer, listServers, serverHomeOf, shellWord, stopProcess } from '../../lib/cli/server.js';
import { defaultDataDir, readLock } from '../../lib/server/lock.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { envUnsets, SHELLS, type Shell } from '../../lib/output/shell.js';

export default class ServerStop extends BaseCommand {
  static override summary =
    'Stop a server payorch started (SIGTERM, then wait): the one on the data directory, or by pid';
  static override description =
    'Without flags: the server PAYORCH_BASE_URL names when it is a local server payorch started (as `server start --detach --env` exports it); else the server on the default data directory — or, when none runs there and payorch started exactly one other server (--memory, another --data-dir), that one. `server status` lists them all.';
  static override examples = [
    '<%= config.bin %> server stop',
    'eval "$(<%= config.bin %> server stop --env)"',
    '<%= config.bin %> server stop --data-dir ./data',
    '<%= config.bin %> server stop --pid 12345',
    '<%= config.bin %> server stop --all',
  ];
  static override flags = {
    'data-dir': dataDirFlag,
    pid: Flags.integer({
      description: 'Stop the server payorch started with this process id (see `server status`)',
      min: 1,
      exclusive: ['data-dir', 'all'],
    }),
    all: Flags.boolean({ description: 'Stop every server payorch started', exclusive: ['data-dir'] }),
    env: Flags.boolean({
      description:
        'Print only shell lines unsetting PAYORCH_BASE_URL and PAYORCH_API_KEY (for eval, undoing `server start --env`); what was stopped goes to stderr',
    }),
    shell: Flags.string({ description: 'The shell --env writes for (default sh)', options: [...SHELLS] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerStop);
    if (flags.env && this.jsonMode)
      throw new CliError('--env prints shell lines and --json a JSON object: use one of them.', EXIT.USAGE);
    if (flags.shell !== undefined && !flags.env)
      throw new CliError('--shell says which shell --env writes for: add --env.', EXIT.USAGE);
    const servers = listServers();
    const dir = flags['data-dir'] ?? defaultDataDir();
    let targets: { pid: number; proc_start?: string | null; base_url: string | null; data_dir: string | null }[];
    const byEnv =
      !flags.all && flags.pid === undefined && !flags['data-dir'] ? envServer(this.io.env, servers) : undefined;
    if (flags.all) targets = servers;
    else if (byEnv) {
      // The server this job's environment names (`server start --detach --env`), and no other: when it is gone
      // already, a trap's stop must not take the default directory's or a parallel job's server instead.
      targets = byEnv.servers;
      if (targets.length === 0) {
        await this.done(
          flags,
          { stopped: false, running: false, base_url: byEnv.url },
          `No server payorch started is running at ${byEnv.url} (PAYORCH_BASE_URL); nothing was stopped.`,
        );
        return;
      }
    } else if (flags.pid !== undefined) {
      const found = servers.find((s) => s.pid === flags.pid);
      if (!found)
        throw new CliError(
          notOurs(
            flags.pid,
            servers.map((s) => s.pid),
          ),
          EXIT.USAGE,
          'not_running',
        );
      targets = [found];
    } else {
      const lock = readLock(dir);
      const others = servers.filter((s) => s.data_dir !== dir);
      if (lock) targets = [{ ...lock, data_dir: dir }];
      else if (!flags['data-dir'] && others.length === 1) targets = others;
      else if (!flags['data-dir'] && others.length > 1) {
        throw new CliError(
          `No server runs on ${dir}; payorch started ${others.length} others: ${others.map((s) => `pid ${s.pid} (${s.base_url})`).join(', ')}. Say which: --pid N, or --all.`,
          EXIT.USAGE,
          'ambiguous',
        );
      } else targets = [];
    }
    if (targets.length === 0) {
      await this.done(flags, { stopped: false, running: false, data_dir: dir }, `No server is running on ${dir}.`);
      return;
    }
    const results: { pid: number; base_url: string | null; data_dir: string | null }[] = [];
    for (const t of targets) {
      const outcome = await stopProcess(t);
      if (outcome === 'timeout')
        throw new CliError(`The server (pid ${t.pid}) did not stop within 10 s.`, EXIT.API, 'stop_timeout');
      results.push({ pid: t.pid, base_url: t.base_url, data_dir: t.data_dir });
    }
    const where = (t: (typeof results)[number]) =>
      `${t.base_url ?? t.data_dir}${t.data_dir === null ? ', in memory' : ''}`;
    if (results.length === 1 && !flags.all)
      await this.done(
        flags,
        { stopped: true, ...results[0] },
        `Stopped the server (pid ${results[0].pid}) on ${where(results[0])}.`,
      );
    else
      await this.done(
        flags,
        { stopped: results.length > 0, servers: results },
        results.length
          ? results.map((t) => `Stopped the server (pid ${t.pid}) on ${where(t)}.`).join('\n')
          : 'No server started by payorch is running.',
      );
  }

  /** The result: printed (JSON or text), or with --env the unset lines on stdout and the text on stderr. */
  private async done(flags: { env?: boolean; shell?: string }, value: object, text: string): Promise<void> {
    if (!flags.env) {
      await this.print(value, () => text);
      return;
    }
    this.io.stdout.write(envUnsets(['PAYORCH_BASE_URL', 'PAYORCH_API_KEY'], (flags.shell ?? 'sh') as Shell));
    this.notice(text);
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
