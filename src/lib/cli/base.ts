// The two command bases. BaseCommand: the command's IO (io.ts), --json, blank-argument checks, error reporting
// and exit codes. ApiCommand: which server and key (flags > env > profile > embedded), the client, --timeout,
// live-key confirmation. A command file only parses its flags, calls the client and says what to show; its
// run() returns what it showed.
import { Command, Flags, type Interfaces } from '@oclif/core';
import type { Client } from '../client/client.js';
import { InvalidBaseUrlError, PayorchError, SimulateWithLiveKeyError } from '../client/errors.js';
import {
  jsonText,
  detailText,
  tableText,
  colorErr,
  loadColor,
  printable,
  setColorMode,
  type ColorMode,
  safeText,
  terminalWidth,
  withWidth,
  type Column,
  type Field,
} from '../output/render.js';
import { maskSecret, maskSecrets } from '../output/mask.js';
import { CliError, EXIT } from './errors.js';
import { processIO, type CliIO } from './io.js';
import { reportError } from './report.js';
import { pageOrAll, type AllCall, type AllList, type ListFlagValues, type PageCall } from './list.js';
import { ask, askInteger, confirm, confirmByTyping, declined, interactive, type AskOptions } from './prompt.js';
import { isLiveKey, resolveTarget, type Target, type TargetFlags } from './target.js';
import { isLocalHost, parseBaseUrl } from '../client/url.js';
import { API_PREFIX, DEFAULT_BASE_URL } from '../contract/prefix.js';

/** The default of --timeout / PAYORCH_TIMEOUT, in seconds: a whole command's request, retries included. */
export const DEFAULT_TIMEOUT_S = 30;

/** --timeout, else PAYORCH_TIMEOUT, else the default, in ms: seconds (`30`, `2.5`, `30s`) or `1500ms`. */
export function commandTimeoutMs(flag: string | undefined, env: NodeJS.ProcessEnv): number {
  const [raw, source] =
    flag !== undefined
      ? [flag, '--timeout']
      : env.PAYORCH_TIMEOUT
        ? [env.PAYORCH_TIMEOUT, 'PAYORCH_TIMEOUT']
        : [undefined, ''];
  if (raw === undefined) return DEFAULT_TIMEOUT_S * 1000;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*$/.exec(raw);
  const ms = m ? Number(m[1]) * (m[2] === 'ms' ? 1 : 1000) : NaN;
  if (!(ms >= 1 && ms <= 3_600_000)) {
    throw new CliError(
      `${source} takes seconds (e.g. 30, 2.5 or 1500ms), at most one hour; got ${JSON.stringify(raw)}.`,
      source === '--timeout' ? EXIT.USAGE : EXIT.AUTH,
    );
  }
  return Math.round(ms);
}

/** `--color on|off|auto`: every command's (render.ts useColor decides what it means). */
export const colorFlag = Flags.option({
  description: 'Colour: on, off, or auto (default: a terminal, unless NO_COLOR; FORCE_COLOR forces it)',
  options: ['on', 'off', 'auto'] as const,
  helpGroup: 'GLOBAL',
})();

/** The last `--color X` / `--color=X` before `--` (an unknown value: auto; the parse then refuses it). */
export function colorModeOf(argv: readonly string[]): ColorMode {
  let mode: ColorMode = 'auto';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    const v = a === '--color' ? argv[++i] : a.startsWith('--color=') ? a.slice(8) : undefined;
    if (v !== undefined) mode = v === 'on' || v === 'off' ? v : 'auto';
  }
  return mode;
}

export abstract class BaseCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({
      description: 'Print the result as JSON on stdout (a failure as an error body), and nothing else. Never prompts.',
      helpGroup: 'GLOBAL',
    }),
    color: colorFlag,
  };

  /** Streams, terminal, stdin, env and prompts: the process's unless a test gives another. */
  io: CliIO = processIO();

  override async init(): Promise<void> {
    // Read from argv at once (like --json), so that even a failing parse prints in the colour asked for.
    setColorMode(colorModeOf(this.argv));
    await loadColor();
    return super.init();
  }

  /** Set from argv at once, so that even a failing parse knows whether to answer in JSON. */
  protected get jsonMode(): boolean {
    return this.argv.includes('--json');
  }

  /**
   * oclif's parse, then: a blank (empty or whitespace-only) argument or required flag is a usage error (exit 2)
   * before any request — an empty `$ID` in a script must not turn `get ""` into a list. No argument is ever read
   * from piped stdin (oclif's default for a missing one): `echo x | payorch profiles show` must not show profile
   * "x", and a command whose optional argument is left out must not wait for stdin first.
   */
  protected override async parse<
    F extends { [name: string]: any },
    B extends { [name: string]: any },
    A extends { [name: string]: any },
  >(options?: Interfaces.Input<F, B, A>, argv?: string[]): Promise<Interfaces.ParserOutput<F, B, A>> {
    const input = options ?? (this.ctor as unknown as Interfaces.Input<F, B, A>);
    const args = Object.fromEntries(
      Object.entries(input.args ?? {}).map(([name, arg]) => [name, { ...arg, ignoreStdin: true }]),
    ) as Interfaces.Input<F, B, A>['args'];
    // What oclif reads of a command class (Command.parse: its own statics, then flags, baseFlags, enableJsonFlag
    // and args looked up through the class chain), with the arguments replaced.
    const withArgs = {
      ...input,
      flags: input.flags,
      baseFlags: input.baseFlags,
      enableJsonFlag: input.enableJsonFlag,
      args,
    } as Interfaces.Input<F, B, A>;
    const out = await super.parse(withArgs, argv).catch((err: unknown) => this.parseFailed(err, options));
    const def = (options ?? this.ctor) as {
      args?: Record<string, { required?: boolean }>;
      flags?: Record<string, { required?: boolean }>;
    };
    for (const [name, value] of Object.entries(out.args as Record<string, unknown>)) {
      if (typeof value === 'string' && value.trim() === '')
        throw new CliError(`The ${name.toUpperCase()} argument is blank; give a value.`, EXIT.USAGE);
    }
    for (const [name, value] of Object.entries(out.flags as Record<string, unknown>)) {
      if (typeof value === 'string' && value.trim() === '' && def.flags?.[name]?.required)
        throw new CliError(`--${name} is blank; give a value.`, EXIT.USAGE);
    }
    return out;
  }

  /**
   * A parse that failed — an unknown flag (with the nearest the command has), a value a flag does not take, an
   * argument missing or too many — becomes a usage error (exit 2) in the CLI's own words and style, as every
   * other usage error is, instead of oclif's `›   Error:` lines and usage dump.
   */
  private async parseFailed(
    err: unknown,
    options: { flags?: object; baseFlags?: object; args?: object } | undefined,
  ): Promise<never> {
    // oclif's parse errors carry `oclif.exit` (2); they are recognized without their classes: bin/run.js may load
    // oclif from its bundle (dist/vendor) rather than node_modules. Anything else goes on as it was.
    // A flag's own parse that refused a value (a CliError, amountFlag's say) comes back with oclif's "Parsing --x"
    // put in front of its message.
    const own = err instanceof CliError && err.message.startsWith('Parsing --');
    if (!(err instanceof Error) || (!own && (err as { oclif?: { exit?: number } }).oclif?.exit !== EXIT.USAGE))
      throw err;
    const def = options ?? this.ctor;
    const command = [this.config.bin, ...(this.id ?? '').split(':')].filter(Boolean).join(' ');
    const { parseErrorMessage, unknownFlagsMessage } = await import('./suggest.js');
    this.parsed = true; // parsed, and refused: oclif would otherwise warn that the command never parsed its argv
    // oclif's NonExistentFlagsError is the parser's only error with a `flags` list.
    const tokens = (err as { flags?: unknown }).flags;
    if (Array.isArray(tokens) && /^Nonexistent flags?:/.test(err.message)) {
      const names = Object.keys({ ...def.baseFlags, ...def.flags });
      throw new CliError(unknownFlagsMessage(tokens as string[], names, command), EXIT.USAGE);
    }
    const args = Object.entries((def.args ?? {}) as Record<string, { description?: string }>).map(([name, a]) => ({
      name: name.toUpperCase(),
      description: a.description,
    }));
    throw new CliError(parseErrorMessage(err.message, command, args), own ? err.exitCode : EXIT.USAGE);
  }

  /**
   * Writes a result — with --json exactly the value, else the human text, its tables fitted to the terminal's
   * width (piped, they keep every value whole) — and returns the value.
   */
  protected async print<T>(value: T, human: () => string | Promise<string>): Promise<T> {
    if (this.jsonMode) {
      this.io.stdout.write(jsonText(value) + '\n');
      return value;
    }
    this.io.stdout.write(safeText(await this.render(this.io.stdout, human)) + '\n');
    return value;
  }

  /**
   * A human view to be written on `stream`: its tables fit the stream's width when it is a terminal
   * (terminalWidth: its size, else COLUMNS).
   */
  protected render(stream: CliIO['stdout'], view: () => string | Promise<string>): Promise<string> {
    return withWidth(terminalWidth(stream, this.io.env), async () => view());
  }

  protected detail<T>(obj: T, title: string, fields: Field<T>[]): Promise<T> {
    return this.print(obj, () => detailText(obj, title, fields));
  }

  protected async table<T, L extends { data: T[]; has_more?: boolean; total_count?: number }>(
    list: L & { data: T[] },
    columns: Column<T>[],
    empty = 'Nothing to show.',
  ): Promise<L> {
    return this.print(list, async () => {
      if (list.data.length === 0) return empty;
      const t = await tableText(list.data, columns);
      const more = list.has_more
        ? `\n${colorErr().dim(`… more: ${list.total_count ?? '?'} in all (use --starting-after ${printable((list.data.at(-1) as { id?: string }).id ?? '')} or --all)`)}`
        : '';
      return t + more;
    });
  }

  /** One page of a list, or with --all every page in one list: `page` and `all` are the client's two calls. */
  protected listOf<P extends object, T, L>(
    flags: ListFlagValues,
    params: P,
    page: PageCall<P, L>,
    all: AllCall<P, T>,
  ): Promise<L | AllList<T>> {
    return pageOrAll(flags, params, page, all, { io: this.io, json: this.jsonMode });
  }

  /** A notice for people: stderr, so stdout stays the result. */
  protected notice(message: string): void {
    this.io.stderr.write(`${colorErr().dim(safeText(message))}\n`);
  }

  /** The flag's value, or a prompt on a terminal, or exit 2 naming the flag. A blank value counts as missing. */
  protected async need<T extends string | number>(value: T | undefined, opts: Omit<AskOptions, 'json'>): Promise<T> {
    if (value !== undefined && String(value).trim() !== '') return value;
    if (opts.kind === 'integer') return (await askInteger({ ...opts, json: this.jsonMode }, this.io)) as T;
    if (opts.kind === 'amount') return Number(await ask({ ...opts, json: this.jsonMode }, this.io)) as T;
    return (await ask({ ...opts, json: this.jsonMode }, this.io)) as T;
  }

  /** A yes/no question when there is a terminal to ask on (and not --json); undefined when there is none. */
  protected async askIfTerminal(message: string): Promise<boolean | undefined> {
    return interactive(this.jsonMode, this.io) ? confirm(message, this.jsonMode, this.io) : undefined;
  }

  /** A yes/no question (a terminal is required unless --yes); "no" ends the command with exit 2. */
  protected async confirmOrAbort(message: string, what?: string): Promise<void> {
    if (!(await confirm(message, this.jsonMode, this.io))) throw declined(what);
  }

  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<unknown> {
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
        this.io.stdout.write(
          jsonText({ error: { type: 'invalid_request_error', code: 'usage_error', message } }) + '\n',
        );
      }
      throw err;
    }
    await loadColor();
    const { exit, body, line } = reportError(err, this.io.env);
    if (this.jsonMode) this.io.stdout.write(jsonText(body) + '\n');
    this.io.stderr.write(line + '\n');
    this.io.setExitCode(exit);
    return undefined;
  }
}

export abstract class ApiCommand extends BaseCommand {
  static override baseFlags = {
    json: Flags.boolean({
      description: 'Print exactly the API object (or error body) as JSON on stdout, and nothing else. Never prompts.',
      helpGroup: 'GLOBAL',
    }),
    color: colorFlag,
    'api-key': Flags.string({ description: 'API key (overrides PAYORCH_API_KEY and profiles)', helpGroup: 'GLOBAL' }),
    'base-url': Flags.string({
      description: `API base URL, e.g. ${DEFAULT_BASE_URL}`,
      helpGroup: 'GLOBAL',
    }),
    profile: Flags.string({ description: 'Use this stored profile', helpGroup: 'GLOBAL' }),
    timeout: Flags.string({
      description: `Give up after this many seconds in all, retries included (default ${DEFAULT_TIMEOUT_S}; env PAYORCH_TIMEOUT)`,
      helpGroup: 'GLOBAL',
    }),
    simulate: Flags.string({
      description:
        'Test mode: a fault for each request\'s first attempt, e.g. after_commit=reset (Payorch-Simulate; docs/api.md "Fault injection")',
      helpGroup: 'GLOBAL',
    }),
  };

  private target?: Target;
  private clientInstance?: Client;
  /** Whether client() runs the server inside this process (no key, no server running): it ends with the command. */
  protected inProcess = false;
  /** The server in this process, when client() runs it there: what it leaves to send is looked at in finally(). */
  private embedded?: { dataDir: string; pendingDeliveries(): Promise<number> };
  /**
   * Set by a command that only makes sense with a long-lived server (`logs tail`: the request log is the memory of
   * the server that answers the requests): why. With no key configured such a command uses the background server,
   * started even without a terminal, as at one — never the server in its own process, which would answer nobody
   * else's requests (README "Quick start").
   */
  protected needsServer?: string;

  /** The client for the resolved target; on the embedded default, the server runs in this process. */
  protected async client(flags: TargetFlags & { timeout?: string; simulate?: string }): Promise<Client> {
    if (this.clientInstance) return this.clientInstance;
    const timeoutMs = commandTimeoutMs(flags.timeout, this.io.env);
    const target = (this.target = resolveTarget(flags, this.io.env));
    const { Client } = await import('../client/client.js');
    // One budget for the whole call: attempts get what is left of it, and no retry starts past it.
    const common = {
      userAgent: `payorch-cli/${this.config.version}`,
      timeoutMs,
      deadlineMs: timeoutMs,
      onRequest: this.io.onRequest,
      simulate: flags.simulate,
    };
    if (target.kind === 'http') {
      this.checkBaseUrl(target.baseUrl, flags['base-url'] !== undefined);
      if (flags.simulate !== undefined && isLiveKey(target.apiKey)) throw new SimulateWithLiveKeyError();
      this.clientInstance = new Client({ ...common, apiKey: target.apiKey, baseUrl: target.baseUrl });
      if (isLiveKey(target.apiKey))
        this.notice(`LIVE key ${maskSecret(target.apiKey)} (${target.source}) → ${target.baseUrl}`);
    } else {
      // No key configured: the server running on the default data directory (started in the background at a
      // terminal, see src/lib/cli/server.ts), else the same server inside this process.
      const { localServer, autoStartWanted, daemonRefused } = await import('./server.js');
      const command = `payorch ${(this.id ?? '').split(':').join(' ')}`;
      if (this.needsServer && daemonRefused())
        throw new CliError(
          `${command} needs a running server (${this.needsServer}), and PAYORCH_DAEMON=0 starts none: run \`payorch server start\` first (in another terminal, or with --detach), or unset PAYORCH_DAEMON.`,
          EXIT.AUTH,
        );
      const local = await localServer(this.needsServer ? true : autoStartWanted());
      if (!local && this.needsServer)
        throw new CliError(
          `${command} needs a running server (${this.needsServer}), and the background server could not be started: run \`payorch server start\` and see what it says.`,
          EXIT.UNREACHABLE,
          'connection_error',
        );
      if (local) {
        const how = local.started ? `started it in the background, pid ${local.pid}` : `pid ${local.pid}`;
        const stops = local.auto ? '; it stops after idling, or with `payorch server stop`' : '';
        this.notice(
          `payorch: no API key configured — using the test-mode server at ${local.baseUrl} (${how}; data: ${local.dataDir}${stops}).`,
        );
        this.clientInstance = new Client({ ...common, apiKey: local.apiKey, baseUrl: local.baseUrl });
      } else {
        const { openInProcess, InProcessTransport } = await (await import('./embedded.js')).loadEmbedded();
        const embedded = await openInProcess();
        this.inProcess = true;
        this.embedded = embedded;
        this.notice(
          `payorch: no API key configured — using the embedded test-mode server, in this process (data: ${embedded.dataDir}); its pages (checkout, 3DS) are served only while \`payorch server start\` runs, and webhook deliveries are sent by the background server, started when there are some.`,
        );
        this.clientInstance = new Client({
          ...common,
          apiKey: embedded.apiKey,
          transport: new InProcessTransport(embedded, () => embedded.close()),
        });
      }
    }
    return this.clientInstance;
  }

  /** A base URL must be http(s) with a host (exit 2 from --base-url, 3 from env or a profile); a local one without /functions/v1 gets a warning. */
  private checkBaseUrl(baseUrl: string, fromFlag: boolean): void {
    let url: URL;
    try {
      url = parseBaseUrl(baseUrl);
    } catch (err) {
      if (err instanceof InvalidBaseUrlError)
        throw new CliError(
          `${err.message}${fromFlag ? '' : ' Fix PAYORCH_BASE_URL or the profile (`payorch profiles show`).'}`,
          fromFlag ? EXIT.USAGE : EXIT.AUTH,
        );
      throw err;
    }
    if (isLocalHost(url.hostname) && !url.pathname.replace(/\/+$/, '').endsWith(API_PREFIX)) {
      this.notice(
        `payorch: warning: ${url.origin}${url.pathname.replace(/\/+$/, '')} does not end in ${API_PREFIX}; the local server serves the API under it (e.g. ${url.origin}${API_PREFIX}).`,
      );
    }
  }

  protected get isLive(): boolean {
    return this.target?.kind === 'http' && isLiveKey(this.target.apiKey);
  }

  /**
   * The one guard before a state-changing request, called right before it is sent: with a live key the change
   * is shown and confirmed, whatever the command read before (a terminal is required unless --yes; "no" ends
   * the command with exit 2). Test keys go ahead, unless `testToo` asks for a confirmation there as well.
   * `typed`: the confirmation is typing this value (a ledger account's id) rather than yes. `show`: a view of
   * what will change, written to stderr before the question (stdout stays the command's result).
   */
  protected async confirmChange(
    summary: string,
    yes: boolean | undefined,
    opts: { typed?: string; testToo?: boolean; show?: () => string | Promise<string> } = {},
  ): Promise<void> {
    if (yes || !(this.isLive || opts.testToo)) return;
    if (opts.show && !this.jsonMode) this.io.stderr.write(`${await this.render(this.io.stderr, opts.show)}\n\n`);
    const sentence = printable(summary.charAt(0).toUpperCase() + summary.slice(1));
    if (!this.isLive) return this.confirmOrAbort(`${sentence}?`);
    this.io.stderr.write(`${colorErr().bold.red('LIVE')} ${printable(summary)}\n`);
    if (opts.typed === undefined) return this.confirmOrAbort(`Apply this change with a LIVE key?`);
    if (!(await confirmByTyping(`${sentence} with a LIVE key?`, opts.typed, this.jsonMode, this.io))) throw declined();
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    // The server in this process sends no webhook: what its events call for is handed to the background server.
    const pending = this.embedded ? await this.embedded.pendingDeliveries().catch(() => 0) : 0;
    await this.clientInstance?.close().catch(() => undefined);
    if (pending > 0) await this.handOverDeliveries(pending, this.embedded!.dataDir);
    return super.finally(err);
  }

  /**
   * Webhook deliveries the server in this process recorded and cannot send (it ends with the command): the
   * background server sends them — the one running on the data directory, else one started now, even without a
   * terminal (README "Quick start"); with PAYORCH_DAEMON=0 the command says what sends them instead.
   */
  private async handOverDeliveries(pending: number, dataDir: string): Promise<void> {
    const { localServer, daemonRefused, idleTimeoutSeconds } = await import('./server.js');
    const what = `${pending} webhook ${pending === 1 ? 'delivery' : 'deliveries'} pending`;
    const later = `they go out once a server runs on ${dataDir} (\`payorch server start\`)`;
    if (daemonRefused()) {
      this.notice(`payorch: ${what}: ${later}; PAYORCH_DAEMON=0 keeps every command in its own process.`);
      return;
    }
    const local = await localServer(true).catch(() => undefined);
    if (!local) {
      this.notice(`payorch: ${what}, and the background server could not be started: ${later}.`);
      return;
    }
    this.notice(
      `payorch: ${what} — ${local.started ? 'started' : 'handed to'} the test-mode server in the background to send ${pending === 1 ? 'it' : 'them'} (${local.baseUrl}, pid ${local.pid}; later commands use it; ${local.auto ? `it stops after ${idleTimeoutSeconds()} s without requests, or with` : 'stop it with'} \`payorch server stop\`).`,
    );
  }
}

/** `--yes` for commands that change state. */
export const yesFlag = Flags.boolean({
  char: 'y',
  description: 'Do not ask for confirmation (required for live keys without a terminal)',
});

/** `--idempotency-key` for commands that create or change. */
export const idempotencyFlag = Flags.string({
  description: 'Idempotency-Key to send (default: a new random key, reused across retries)',
});

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
