import { BaseCommand } from '../../lib/cli/base.js';
import { dataDirFlag, listServers, probeServer, stopHint, type ServerState } from '../../lib/cli/server.js';
import { defaultDataDir, readLock, recordedDatabase } from '../../lib/server/lock.js';
import { describeUrl } from '../../lib/server/database-url.js';
import { EXIT } from '../../lib/cli/errors.js';
import { detailText } from '../../lib/output/render.js';
import { formatTime } from '../../lib/output/format.js';

export default class ServerStatus extends BaseCommand {
  static override summary =
    'Is a server running on the data directory? Lists the other servers payorch started (exit 0 yes, 4 no)';
  static override description =
    "With --data-dir: that directory only. Without: the default data directory, and every other server payorch started (--memory ones included), listed for what they are; the exit code answers for the data directory's server alone: 0 when it runs and answers, 4 when none runs there (or it does not answer), 75 when it runs but cannot serve requests now because its database is unavailable (a shared sandbox's PostgreSQL: try again later).";
  static override examples = [
    '<%= config.bin %> server status',
    '<%= config.bin %> server status --data-dir ./data --json',
  ];
  static override flags = { 'data-dir': dataDirFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerStatus);
    const dir = flags['data-dir'] ?? defaultDataDir();
    const lock = readLock(dir);
    const recorded = recordedDatabase(dir);
    const database = recorded === undefined ? undefined : describeUrl(recorded);
    const state: ServerState | null = lock
      ? lock.base_url
        ? await probeServer(lock.base_url)
        : 'not_answering'
      : null;
    const healthy = state === 'running';
    const others = flags['data-dir'] ? [] : listServers().filter((s) => s.data_dir !== dir);
    const otherViews = await Promise.all(
      others.map(async (s) => {
        const st = await probeServer(s.base_url);
        return {
          pid: s.pid,
          base_url: s.base_url,
          data_dir: s.data_dir,
          memory: s.data_dir === null,
          started_at: s.started_at,
          healthy: st === 'running',
          state: st,
          stop: stopHint(s),
        };
      }),
    );
    const view = {
      running: Boolean(lock),
      healthy,
      state,
      pid: lock?.pid ?? null,
      base_url: lock?.base_url ?? null,
      data_dir: dir,
      ...(database !== undefined && { database }),
      started_at: lock?.started_at ?? null,
      background: Boolean(lock?.auto),
      ...(flags['data-dir'] ? {} : { others: otherViews }),
    };
    await this.print(view, () => {
      const main = lock
        ? detailText(view, `Server ${stateText[state!]}`, [
            { label: 'url', value: (v) => v.base_url },
            { label: 'pid', value: (v) => v.pid },
            { label: 'data', value: (v) => v.data_dir },
            ...(database !== undefined ? [{ label: 'database', value: () => `${database} (PostgreSQL)` }] : []),
            { label: 'since', value: (v) => formatTime(v.started_at) },
            ...(lock.auto
              ? [{ label: 'started', value: () => 'in the background for commands with no key; stops when idle' }]
              : []),
            { label: 'stop', value: () => stopHint({ pid: lock.pid, data_dir: dir }) },
          ])
        : `No server is running on ${dir}${database !== undefined ? ` (its database: ${database})` : ''}.`;
      const rest = otherViews.map(
        (o) =>
          `  pid ${o.pid}  ${o.base_url}  ${o.memory ? '(in memory)' : o.data_dir}  ${stateText[o.state]}  stop: ${o.stop}`,
      );
      return rest.length ? `${main}\n\nOther servers payorch started:\n${rest.join('\n')}` : main;
    });
    // The data directory's server alone: the others are listed, not asked about.
    if (state === 'database_unavailable') this.io.setExitCode(EXIT.TRY_LATER);
    else if (!healthy) this.io.setExitCode(EXIT.UNREACHABLE);
  }
}

const stateText: Record<ServerState, string> = {
  running: 'running',
  database_unavailable: 'running; its database is unavailable',
  not_answering: 'not answering',
};
