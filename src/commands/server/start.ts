import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { dataDirFlag, probeHealth } from '../../lib/cli/server.js';
import { maskSecret } from '../../lib/output/mask.js';
import { colorErr } from '../../lib/output/render.js';

interface Started {
  base_url: string;
  api_key: string;
  pid: number;
  data_dir: string | null;
}

export default class ServerStart extends BaseCommand {
  static override summary = 'Run the test-mode server on loopback';
  static override description =
    'Runs in the foreground until Ctrl-C (or SIGTERM), or with --detach in the background once it answers /health. The first start of a data directory creates an account and an sk_test_ key and prints it.';
  static override examples = ['<%= config.bin %> server start', '<%= config.bin %> server start --port 0 --memory --detach --json'];
  static override flags = {
    port: Flags.integer({ description: 'Port (0 picks a free one)', default: 4242, min: 0, max: 65535 }),
    host: Flags.string({ description: 'Interface to listen on', default: '127.0.0.1' }),
    'data-dir': dataDirFlag,
    memory: Flags.boolean({ description: 'Keep the database in memory (nothing persists)', exclusive: ['data-dir'] }),
    detach: Flags.boolean({ description: 'Run in the background; return once it answers /health' }),
    'rate-limit-per-minute': Flags.integer({ description: 'Requests per key per minute (default 1000)', min: 1 }),
    'rate-limit-per-day': Flags.integer({ description: 'Requests per key per day (default 100000)', min: 1 }),
    'concurrency-limit': Flags.integer({ description: 'Requests in flight per key (default 50)', min: 1 }),
    'headers-timeout': Flags.integer({ description: 'Seconds a client may take to send a request\'s headers (default 20)', min: 1 }),
    'request-timeout': Flags.integer({ description: 'Seconds a client may take to send a whole request, body included (default 60)', min: 1 }),
    routing: Flags.string({ description: 'Payment routing rules (JSON file) replacing the default set; see docs/api.md "Routing"' }),
    'psp-down': Flags.string({ description: 'Start with this processor marked down (repeatable)', multiple: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerStart);
    if (flags.detach) return this.detach(flags.memory ? undefined : (flags['data-dir'] ?? null));
    const { startServer } = await import('../../lib/server/server.js');
    const { AlreadyRunningError } = await import('../../lib/server/datadir.js');
    let server: Awaited<ReturnType<typeof startServer>>;
    let routing;
    if (flags.routing) {
      const { loadRoutingFile } = await import('../../lib/server/domain/payments/routing.js');
      try {
        routing = loadRoutingFile(flags.routing);
      } catch (err) {
        throw new CliError((err as Error).message, EXIT.USAGE, 'invalid_routing');
      }
    }
    try {
      server = await startServer({
        port: flags.port,
        host: flags.host,
        dataDir: flags['data-dir'],
        memory: flags.memory,
        rateLimits: { perMinute: flags['rate-limit-per-minute'], perDay: flags['rate-limit-per-day'], concurrency: flags['concurrency-limit'] },
        routing,
        pspDown: flags['psp-down'],
        timeouts: { headersMs: seconds(flags['headers-timeout']), requestMs: seconds(flags['request-timeout']) },
      });
    } catch (err) {
      if (err instanceof AlreadyRunningError) throw new CliError(err.message, EXIT.USAGE, 'already_running');
      if (/processor|routing/i.test((err as Error).message)) throw new CliError((err as Error).message, EXIT.USAGE, 'invalid_routing');
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new CliError(`Port ${flags.port} on ${flags.host} is in use. Pick another with --port (0 picks a free one).`, EXIT.USAGE, 'address_in_use');
      if (code === 'EACCES' || code === 'EADDRNOTAVAIL') throw new CliError(`Cannot listen on ${flags.host}:${flags.port} (${code}).`, EXIT.USAGE, 'cannot_listen');
      throw err;
    }
    // Signal handlers before the banner: whoever reads the banner may stop the server at once.
    const detached = process.env.PAYORCH_DETACHED === '1';
    const stopped = new Promise<void>((resolve) => {
      const stop = () => {
        void server.close().then(() => {
          if (!detached && !this.jsonMode) process.stderr.write('payorch server stopped.\n');
          resolve();
        });
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    const started: Started = { base_url: server.baseUrl, api_key: server.apiKey, pid: server.pid, data_dir: server.dataDir };
    if (this.jsonMode) process.stdout.write(JSON.stringify(started) + '\n');
    else {
      const c = colorErr();
      const key = server.created ? `${server.apiKey}  ${c.yellow('(new — shown once here; kept in the data directory)')}` : maskSecret(server.apiKey);
      process.stdout.write(
        [
          `${c.bold('payorch test-mode server')} listening on ${server.baseUrl}`,
          `  API key   ${key}`,
          `  data      ${server.dataDir ?? '(in memory)'}`,
          `  pid       ${server.pid}`,
          `  Press Ctrl-C to stop.`,
        ].join('\n') + '\n',
      );
    }
    await stopped;
  }

  /**
   * Starts a child `server start --json` and returns once it has printed its address and answers /health.
   * @param dataDir the data directory (null: the default one; undefined: --memory).
   */
  private async detach(dataDir: string | null | undefined): Promise<void> {
    // A first start creates the key: then it is printed in full, as the foreground start does.
    const { defaultDataDir } = await import('../../lib/server/datadir.js');
    const fresh = dataDir === undefined || !existsSync(join(dataDir ?? defaultDataDir(), 'credentials.json'));
    const bin = fileURLToPath(new URL('../../../bin/run.js', import.meta.url));
    const args = this.argv.filter((a) => a !== '--detach' && a !== '--json');
    const child = spawn(process.execPath, [bin, 'server', 'start', ...args, '--json'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PAYORCH_DETACHED: '1' },
    });
    let out = '';
    let err = '';
    const started = await new Promise<Started | undefined>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const nl = out.indexOf('\n');
        if (nl < 0) return;
        try {
          const first = JSON.parse(out.slice(0, nl)) as Partial<Started>;
          if (typeof first.base_url === 'string') resolve(first as Started);
        } catch {
          /* not the one-line start record: the child is failing (a pretty-printed error body follows) */
        }
      });
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      // 'close' (not 'exit'): all of the child's output has been read by then.
      child.on('close', () => resolve(undefined));
    });
    if (!started) {
      const failure = (() => {
        try {
          return (JSON.parse(out) as { error?: { message?: string } }).error?.message;
        } catch {
          return undefined;
        }
      })();
      throw new CliError(failure ?? (err.trim().split('\n')[0] || 'The server exited before it was ready.'), EXIT.USAGE, 'start_failed');
    }
    for (let i = 0; i < 50 && !(await probeHealth(started.base_url)); i++) await new Promise((r) => setTimeout(r, 100));
    child.stdout.destroy();
    child.stderr.destroy();
    child.unref();
    if (this.jsonMode) process.stdout.write(JSON.stringify(started) + '\n');
    else process.stdout.write(`payorch test-mode server running in the background on ${started.base_url} (pid ${started.pid}, key ${fresh ? started.api_key : maskSecret(started.api_key)}).\nStop it with \`payorch server stop\`${started.data_dir ? '' : ` or kill ${started.pid}`}.\n`);
  }
}

const seconds = (s: number | undefined) => (s === undefined ? undefined : s * 1000);
