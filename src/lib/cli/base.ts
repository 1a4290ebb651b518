// The two command bases. BaseCommand: --json, error reporting and exit codes. ApiCommand: which server
// and key (flags > env > profile > embedded), the client, live-key confirmation. A command file only
// parses its flags, calls the client and says what to show.
import { Command, Flags } from '@oclif/core';
import type { Client } from '../client/client.js';
import { ApiError, ConnectionError, PayorchError, ProtocolError } from '../client/errors.js';
import { jsonText, detailText, tableText, colorErr, loadColor, type Column, type Field } from '../output/render.js';
import { maskSecret, maskSecrets } from '../output/mask.js';
import { CliError, EXIT } from './errors.js';
import { ask, askInteger, confirm, type AskOptions } from './prompt.js';
import { isLiveKey, resolveTarget, type Target, type TargetFlags } from './target.js';

export abstract class BaseCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({ description: 'Print exactly the API object (or error body) as JSON on stdout, and nothing else. Never prompts.', helpGroup: 'GLOBAL' }),
  };

  override async init(): Promise<void> {
    await loadColor();
    return super.init();
  }

  /** Set from argv at once, so that even a failing parse knows whether to answer in JSON. */
  protected get jsonMode(): boolean {
    return this.argv.includes('--json');
  }

  /** Writes a result: JSON (secrets masked) with --json, else the human text. */
  protected print(value: unknown, human: () => string | Promise<string>): Promise<void> | void {
    if (this.jsonMode) {
      process.stdout.write(jsonText(value) + '\n');
      return;
    }
    const out = human();
    if (typeof out === 'string') process.stdout.write(out + '\n');
    else return out.then((t) => void process.stdout.write(t + '\n'));
  }

  protected detail<T>(obj: T, title: string, fields: Field<T>[]): void {
    void this.print(obj, () => detailText(obj, title, fields));
  }

  protected async table<T>(list: { data: T[]; has_more?: boolean; total_count?: number }, columns: Column<T>[], empty = 'Nothing to show.'): Promise<void> {
    await this.print(list, async () => {
      if (list.data.length === 0) return empty;
      const t = await tableText(list.data, columns);
      const more = list.has_more ? `\n${colorErr().dim(`… more: ${list.total_count ?? '?'} in all (use --starting-after ${String((list.data.at(-1) as { id?: string }).id ?? '')} or --all)`)}` : '';
      return t + more;
    });
  }

  /** A notice for people: stderr, so stdout stays the result. */
  protected notice(message: string): void {
    process.stderr.write(`${colorErr().dim(message)}\n`);
  }

  /** The flag's value, or a prompt on a terminal, or exit 2 naming the flag. */
  protected async need<T extends string | number>(value: T | undefined, opts: Omit<AskOptions, 'json'> & { kind?: 'text' | 'integer' | 'password' }): Promise<T> {
    if (value !== undefined && value !== '') return value;
    if (opts.kind === 'integer') return (await askInteger({ ...opts, json: this.jsonMode })) as T;
    return (await ask({ ...opts, json: this.jsonMode })) as T;
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    // oclif's own exits and parse errors (exit 2) keep oclif's handling.
    if (err.oclif?.exit !== undefined && !(err instanceof PayorchError) && !(err instanceof CliError)) {
      if (this.jsonMode && err.oclif.exit !== 0) {
        // oclif's message spans lines ("Missing 1 required arg:\nid  Session id\nSee more help…"): keep what
        // names the problem, drop the help pointer.
        const message = err.message
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l && !l.startsWith('See more help'))
          .join(' ')
          .replace(/\s+/g, ' ');
        process.stdout.write(jsonText({ error: { type: 'invalid_request_error', code: 'usage_error', message } }) + '\n');
      }
      throw err;
    }
    await loadColor();
    const c = colorErr();
    let exit: number = EXIT.API;
    let body: unknown;
    let line: string;
    if (err instanceof ApiError) {
      exit = err.status === 401 ? EXIT.AUTH : EXIT.API;
      body = err.body;
      const parts = [err.code, err.param ? `param ${err.param}` : '', err.declineCode ? `decline ${err.declineCode}` : '', err.requestId ? `request ${err.requestId}` : ''].filter(Boolean);
      line = `${c.red('Error:')} ${err.message} ${c.dim(`(${parts.join(', ')})`)}`;
    } else if (err instanceof ConnectionError) {
      exit = EXIT.UNREACHABLE;
      body = { error: { type: 'api_error', code: 'connection_error', message: err.message } };
      line = `${c.red('Error:')} ${err.message}. Is the server running? (\`payorch server start\`)`;
    } else if (err instanceof ProtocolError) {
      exit = EXIT.API;
      body = { error: { type: 'api_error', code: 'protocol_error', message: err.message } };
      line = `${c.red('Error:')} ${err.message}`;
    } else if (err instanceof CliError) {
      exit = err.exitCode;
      body = { error: { type: 'invalid_request_error', code: err.code, message: err.message } };
      line = `${c.red('Error:')} ${err.message}`;
    } else if ((err as { name?: string }).name === 'ExitPromptError') {
      exit = EXIT.USAGE;
      body = { error: { type: 'invalid_request_error', code: 'aborted', message: 'Aborted at the prompt; nothing was changed.' } };
      line = 'Aborted; nothing was changed.';
    } else {
      body = { error: { type: 'api_error', code: 'cli_internal_error', message: err.message } };
      line = `${c.red('Error:')} ${err.message}${process.env.DEBUG ? `\n${err.stack}` : ''}`;
    }
    if (this.jsonMode) process.stdout.write(jsonText(body) + '\n');
    process.stderr.write(line + '\n');
    process.exitCode = exit;
    return undefined;
  }
}

export abstract class ApiCommand extends BaseCommand {
  static override baseFlags = {
    ...BaseCommand.baseFlags,
    'api-key': Flags.string({ description: 'API key (overrides PAYORCH_API_KEY and profiles)', helpGroup: 'GLOBAL' }),
    'base-url': Flags.string({ description: 'API base URL, e.g. http://127.0.0.1:4242/functions/v1', helpGroup: 'GLOBAL' }),
    profile: Flags.string({ description: 'Use this stored profile', helpGroup: 'GLOBAL' }),
  };

  private target?: Target;
  private clientInstance?: Client;

  /** The client for the resolved target; on the embedded default, the server runs in this process. */
  protected async client(flags: TargetFlags): Promise<Client> {
    if (this.clientInstance) return this.clientInstance;
    const target = (this.target = resolveTarget(flags));
    const { Client } = await import('../client/client.js');
    const userAgent = `payorch-cli/${this.config.version}`;
    if (target.kind === 'http') {
      this.clientInstance = new Client({ apiKey: target.apiKey, baseUrl: target.baseUrl, userAgent });
      if (isLiveKey(target.apiKey)) this.notice(`LIVE key ${maskSecret(target.apiKey)} (${target.source}) → ${target.baseUrl}`);
    } else {
      // No key configured: the server running on the default data directory (started in the background at a
      // terminal, see src/lib/cli/server.ts), else the same server inside this process.
      const { localServer, autoStartWanted } = await import('./server.js');
      const local = await localServer(autoStartWanted());
      if (local) {
        const how = local.started ? `started it in the background, pid ${local.pid}` : `pid ${local.pid}`;
        const stops = local.auto ? '; it stops after idling, or with `payorch server stop`' : '';
        this.notice(`payorch: no API key configured — using the test-mode server at ${local.baseUrl} (${how}; data: ${local.dataDir}${stops}).`);
        this.clientInstance = new Client({ apiKey: local.apiKey, baseUrl: local.baseUrl, userAgent });
      } else {
        const [{ openEmbedded }, { InProcessTransport }] = await Promise.all([import('../server/server.js'), import('../client/inprocess.js')]);
        const embedded = await openEmbedded();
        this.notice(`payorch: no API key configured — using the embedded test-mode server (data: ${embedded.dataDir}); its pages (checkout, 3DS) are served only while \`payorch server start\` runs.`);
        this.clientInstance = new Client({ apiKey: embedded.apiKey, transport: new InProcessTransport(embedded.app, () => embedded.close()), userAgent });
      }
    }
    return this.clientInstance;
  }

  protected get isLive(): boolean {
    return this.target?.kind === 'http' && isLiveKey(this.target.apiKey);
  }

  /**
   * Before a state-changing call: with a live key, show what will change and ask (a terminal is required
   * unless --yes). Test keys go ahead.
   */
  protected async confirmChange(summary: string, yes: boolean | undefined): Promise<void> {
    if (!this.isLive || yes) return;
    process.stderr.write(`${colorErr().bold.red('LIVE')} ${summary}\n`);
    if (!(await confirm(`Apply this change with a LIVE key?`, this.jsonMode))) throw new CliError('Aborted; nothing was changed.', EXIT.API, 'aborted');
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    await this.clientInstance?.close().catch(() => undefined);
    return super.finally(err);
  }
}

/** `--yes` for commands that change state. */
export const yesFlag = Flags.boolean({ char: 'y', description: 'Do not ask for confirmation (required for live keys without a terminal)' });

/** `--idempotency-key` for commands that create or change. */
export const idempotencyFlag = Flags.string({ description: 'Idempotency-Key to send (default: a new random key, reused across retries)' });

/** `key=value` pairs (repeatable) → metadata object. */
export const metadataFlag = Flags.string({ description: 'Metadata as key=value (repeatable)', multiple: true });

export function parseMetadata(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new CliError(`--metadata takes key=value (got "${pair}").`, EXIT.USAGE);
    out[pair.slice(0, i)] = pair.slice(i + 1);
  }
  return out;
}

export { maskSecrets };

/** `--limit`, `--starting-after`, `--ending-before`, `--all` for every list command. */
export const listFlags = {
  limit: Flags.integer({ description: 'Page size, 1–100 (default 10)', min: 1, max: 100 }),
  'starting-after': Flags.string({ description: 'Cursor: the id after which the page starts' }),
  'ending-before': Flags.string({ description: 'Cursor: the id before which the page ends' }),
  all: Flags.boolean({ description: 'Fetch every page (auto-pagination)', exclusive: ['starting-after', 'ending-before'] }),
};

/** Drains an auto-paginating iterator into one list, with a progress count on a terminal. */
export async function listAll<T>(items: AsyncIterable<T>, json: boolean): Promise<{ object: 'list'; data: T[]; has_more: false; total_count: number }> {
  const data: T[] = [];
  const progress = !json && Boolean(process.stderr.isTTY);
  for await (const item of items) {
    data.push(item);
    if (progress && data.length % 100 === 0) process.stderr.write(`\r${data.length} fetched…`);
  }
  if (progress && data.length >= 100) process.stderr.write('\r\x1b[K');
  return { object: 'list', data, has_more: false, total_count: data.length };
}
