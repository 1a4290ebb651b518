import { Flags } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import {
  dataDirFlag,
  dirFlags,
  pollPause,
  probeHealth,
  serve,
  spawnServer,
  stopHint,
  type StartRecord as Started,
} from '../../lib/cli/server.js';
import { defaultDataDir } from '../../lib/server/lock.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../lib/contract/prefix.js';
import { maskSecret } from '../../lib/output/mask.js';
import { envAssignments, SHELLS, type Shell } from '../../lib/output/shell.js';
import { colorErr } from '../../lib/output/render.js';
import { databaseFlag, sealingKeyFileFlag, startOnDatabase } from '../../lib/cli/database.js';
import { describeUrl } from '../../lib/server/database-url.js';

export default class ServerStart extends BaseCommand {
  static override summary = 'Run the test-mode server on loopback';
  static override description =
    'Runs in the foreground until Ctrl-C (or SIGTERM), or with --detach in the background once it answers /health. The first start of a data directory creates an account and an sk_test_ key and prints it.';
  static override examples = [
    '<%= config.bin %> server start',
    '<%= config.bin %> server start --port 0 --memory --detach --json',
    'eval "$(<%= config.bin %> server start --detach --port 0 --env)"; trap \'<%= config.bin %> server stop\' EXIT',
    '<%= config.bin %> server start --database postgres://payorch@db.internal:5432/sandbox --sealing-key-file sealing.key --port 4243',
  ];
  static override flags = {
    port: Flags.integer({
      description: `Port (default ${DEFAULT_PORT}, or a free one when ${DEFAULT_PORT} is taken; 0 picks a free one)`,
      min: 0,
      max: 65535,
    }),
    host: Flags.string({ description: 'Interface to listen on', default: DEFAULT_HOST }),
    'public-url': Flags.string({
      description:
        'The origin clients reach this server at (a load balancer in front of several processes): hosted page URLs start with it',
    }),
    'data-dir': dataDirFlag,
    memory: Flags.boolean({ description: 'Keep the database in memory (nothing persists)', exclusive: ['data-dir'] }),
    database: databaseFlag,
    'sealing-key-file': sealingKeyFileFlag,
    detach: Flags.boolean({ description: 'Run in the background; return once it answers /health' }),
    env: Flags.boolean({
      description:
        'With --detach: print only shell assignments exporting PAYORCH_BASE_URL and PAYORCH_API_KEY, for `eval "$(payorch server start --detach --env)"` (as ssh-agent does); the rest goes to stderr',
    }),
    shell: Flags.string({
      description: 'The shell --env writes for (default sh: bash, zsh, dash…)',
      options: [...SHELLS],
    }),
    'rate-limit-per-minute': Flags.integer({ description: 'Requests per key per minute (default 1000)', min: 1 }),
    'rate-limit-per-day': Flags.integer({ description: 'Requests per key per day (default 100000)', min: 1 }),
    'concurrency-limit': Flags.integer({ description: 'Requests in flight per key (default 50)', min: 1 }),
    'headers-timeout': Flags.integer({
      description: "Seconds a client may take to send a request's headers (default 20)",
      min: 1,
    }),
    'request-timeout': Flags.integer({
      description: 'Seconds a client may take to send a whole request, body included (default 60)',
      min: 1,
    }),
    routing: Flags.string({
      description: 'Payment routing rules (JSON file) replacing the default set; see docs/api.md "Routing"',
    }),
    'psp-down': Flags.string({ description: 'Start with this processor marked down (repeatable)', multiple: true }),
    seed: Flags.integer({
      description:
        'Deterministic mode: ids, keys, secrets and request ids from this seed, the clock from 2025-01-01 moving only when advanced (a fresh data directory, or --memory); see docs/api.md "Deterministic mode"',
      min: 0,
    }),
    clock: Flags.string({
      description:
        "With --seed: frozen (default; time moves only with `clock advance`) or real (with the machine's clock)",
      options: ['frozen', 'real'],
      dependsOn: ['seed'],
    }),
    faults: Flags.string({
      description: 'Fault rules (JSON file: a list) for every account while it runs; see docs/api.md "Fault injection"',
    }),
    // How commands with no key configured start the default data directory's server in the background: port
    // 4242 if free (so that hosted-page links keep working), else any; stops after PAYORCH_IDLE_TIMEOUT
    // seconds without requests (default 300); `server start` in the foreground takes over from it.
    auto: Flags.boolean({ hidden: true, exclusive: ['memory', 'data-dir', 'detach'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerStart);
    if (flags.env && this.jsonMode)
      throw new CliError('--env prints shell assignments and --json a JSON object: use one of them.', EXIT.USAGE);
    if (flags.env && !flags.detach)
      throw new CliError(
        '--env needs --detach: a server in the foreground does not return, so eval would never read the assignments.',
        EXIT.USAGE,
      );
    if (flags.shell !== undefined && !flags.env)
      throw new CliError('--shell says which shell --env writes for: add --env.', EXIT.USAGE);
    // The background server of commands with no key configured is the default data directory's, whatever the
    // environment says of a shared sandbox.
    const db = flags.auto ? undefined : startOnDatabase(flags, this.io.env);
    if (flags.detach) return this.detach(flags.env ? ((flags.shell ?? 'sh') as Shell) : undefined);
    const { server, stopped, portTaken } = await serve({
      port: flags.port ?? DEFAULT_PORT,
      anyPortIfTaken: flags.port === undefined,
      host: flags.host,
      publicUrl: flags['public-url'],
      dataDir: flags['data-dir'],
      memory: flags.memory,
      rateLimits: {
        perMinute: flags['rate-limit-per-minute'],
        perDay: flags['rate-limit-per-day'],
        concurrency: flags['concurrency-limit'],
      },
      routingFile: flags.routing,
      pspDown: flags['psp-down'],
      seed: flags.seed,
      clock: flags.clock as 'frozen' | 'real' | undefined,
      faultsFile: flags.faults,
      timeouts: { headersMs: seconds(flags['headers-timeout']), requestMs: seconds(flags['request-timeout']) },
      auto: flags.auto,
      database: db?.url,
      sealingKey: db?.sealingKey,
    });
    const started: Started = {
      base_url: server.baseUrl,
      api_key: server.apiKey,
      pid: server.pid,
      data_dir: server.dataDir,
      ...(db ? { database: describeUrl(db.url) } : {}),
    };
    if (this.jsonMode)
      process.stdout.write(
        JSON.stringify(process.env.PAYORCH_DETACHED === '1' ? { ...started, key_created: server.created } : started) +
          '\n',
      );
    else {
      const c = colorErr();
      const isDefault = server.dataDir !== null && server.dataDir === defaultDataDir();
      const rec = { pid: server.pid, data_dir: server.dataDir };
      process.stdout.write(
        [
          `${c.bold('payorch test-mode server')} listening on ${server.baseUrl}${portTaken ? c.yellow(` (port ${portTaken} is taken)`) : ''}`,
          `  API key   ${keyLine(server.apiKey, server.created, server.dataDir)}`,
          ...(db ? [`  database  ${describeUrl(db.url)} (PostgreSQL)`] : []),
          `  data      ${server.dataDir ? `${server.dataDir}${db ? ' (lock, log and credentials of this process)' : ''}` : '(in memory: nothing persists)'}`,
          `  pid       ${server.pid}`,
          ...(isDefault ? [`  CLI       payorch commands with no key configured use this server (and its data).`] : []),
          `  Press Ctrl-C to stop (or \`${stopHint(rec)}\`).`,
        ].join('\n') + '\n',
      );
    }
    await stopped;
    if (process.env.PAYORCH_DETACHED !== '1' && !this.jsonMode) process.stderr.write('payorch server stopped.\n');
  }

  /**
   * Starts a child `server start --json` and returns once it has printed its address and answers /health.
   * @param envShell --env: stdout gets only the assignments for this shell, the banner goes to stderr (key masked).
   */
  private async detach(envShell?: Shell): Promise<void> {
    const r = await spawnServer(foregroundArgs(this.argv));
    if (!('started' in r)) {
      // The database's failures keep their exit code (an unreachable database is 4, a wrong key 3).
      const kept = r.code === undefined ? undefined : DATABASE_EXITS[r.code];
      if (kept !== undefined) throw new CliError(r.failure, kept, r.code);
      throw new CliError(
        r.failure,
        EXIT.USAGE,
        r.code === 'already_running' || r.code === 'address_in_use' ? r.code : 'start_failed',
      );
    }
    // A start that made the key prints it in full, as the foreground start does (the child says whether it did).
    const { key_created: fresh = false, ...started } = r.started;
    for (let i = 0; i < 50 && !(await probeHealth(started.base_url)); i++) await pollPause();
    if (this.jsonMode) process.stdout.write(JSON.stringify(started) + '\n');
    else if (envShell) {
      process.stdout.write(
        envAssignments({ PAYORCH_BASE_URL: started.base_url, PAYORCH_API_KEY: started.api_key }, envShell),
      );
      // The key is in the environment now: CI logs get it masked.
      process.stderr.write(
        `payorch test-mode server running in the background on ${started.base_url} (pid ${started.pid}, data ${started.data_dir ?? 'in memory'}, key ${maskSecret(started.api_key)}); PAYORCH_BASE_URL and PAYORCH_API_KEY name it. Stop it with \`payorch server stop\`.\n`,
      );
    } else {
      const dirs = dirFlags(started.data_dir);
      process.stdout.write(
        [
          `payorch test-mode server running in the background on ${started.base_url} (pid ${started.pid}, ${started.database ? `database ${started.database}, ` : ''}data ${started.data_dir ?? 'in memory'}).`,
          `  API key   ${keyLine(started.api_key, fresh, started.data_dir)}`,
          `  Status: \`payorch server status${dirs}\`; logs: ${started.data_dir ? `\`payorch server logs${dirs}\`` : 'none (in memory)'}; stop: \`${stopHint(started)}\`.`,
        ].join('\n') + '\n',
      );
    }
  }
}

/**
 * The key as the text banner shows it: in full when this start created it (first start of a data directory,
 * or in memory — it can be shown nowhere else), else masked with the command that prints it.
 */
function keyLine(key: string, created: boolean, dataDir: string | null): string {
  const c = colorErr();
  if (dataDir === null) return `${key}  ${c.yellow('(in memory: valid while this server runs)')}`;
  const reveal = `payorch server keys reveal --show${dirFlags(dataDir)}`;
  return created
    ? `${key}  ${c.yellow(`(new; \`${reveal}\` prints it again)`)}`
    : `${maskSecret(key)}  ${c.dim(`(\`${reveal}\` prints it in full)`)}`;
}

/** The arguments of the foreground start a detached one runs: without the flags about how this one answers. */
function foregroundArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--shell') i++; // and its value
    else if (!['--detach', '--json', '--env'].includes(a) && !a.startsWith('--shell=')) out.push(a);
  }
  return out;
}

/** The codes of a failed start on PostgreSQL (cli/server.ts databaseFailure), with their exit codes. */
const DATABASE_EXITS: Record<string, number> = {
  connection_error: EXIT.UNREACHABLE,
  configuration_error: EXIT.AUTH,
  database_error: EXIT.API,
};

const seconds = (s: number | undefined) => (s === undefined ? undefined : s * 1000);
