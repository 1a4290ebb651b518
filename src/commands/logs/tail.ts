import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { follow, untilStopped } from '../../lib/cli/events.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { jsonLine, safeText } from '../../lib/output/render.js';
import { requestLogLine } from '../../lib/output/views/events.js';
import type { RequestLogEntry } from '../../lib/contract/requestlog.js';

/** A poll's own request: no retries of its own (the loop polls again) and a bound, so Ctrl-C is never held up. */
const POLL = { maxRetries: 0, timeoutMs: 10_000 };

export default class LogsTail extends ApiCommand {
  static override summary = "The server's request log, live: a line per API request of your account as it is answered";
  static override description =
    "Method, path (no query string), status, duration and request id; with --json also the client's address and the id of the API key (never the key itself, nor headers or bodies). Starts from now; Ctrl-C stops. `--json`: one JSON entry per line.\n\nFilters are applied by the server; each takes a comma-separated list or is repeated (any of its values matches), and an entry must pass every filter given. The Stripe CLI's names work too: --filter-status-code and --filter-status-code-type (= --status), --filter-http-method (= --method), --filter-request-path (= --path), --filter-request-status (= --request-status), --filter-ip-address (= --ip-address).";
  static override examples = [
    '<%= config.bin %> logs tail',
    '<%= config.bin %> logs tail --status 4xx --path /sessions',
    '<%= config.bin %> logs tail --method POST,DELETE --request-status failed',
    '<%= config.bin %> logs tail --filter-http-method GET --filter-status-code-type 2XX',
    '<%= config.bin %> logs tail --key-id key_1a2b3c  # ids: payorch server keys list',
    '<%= config.bin %> logs tail --status 500 --json',
  ];
  static override flags = {
    status: Flags.string({
      description: 'Only these statuses (404) or classes (4xx, 5xx)',
      multiple: true,
      delimiter: ',',
      aliases: ['filter-status-code', 'filter-status-code-type'],
    }),
    path: Flags.string({
      description: 'Only paths that start with this (e.g. /sessions)',
      aliases: ['filter-request-path'],
    }),
    method: Flags.string({
      description: 'Only these HTTP methods (GET, POST, PATCH, DELETE)',
      multiple: true,
      delimiter: ',',
      aliases: ['filter-http-method'],
    }),
    'request-status': Flags.string({
      description: 'succeeded (answered 2xx) or failed (anything else)',
      aliases: ['filter-request-status'],
    }),
    'ip-address': Flags.string({
      description: 'Only requests from these client addresses (127.0.0.1, ::1)',
      multiple: true,
      delimiter: ',',
      aliases: ['filter-ip-address'],
    }),
    'request-id': Flags.string({ description: 'Only the request of this id (req_…)' }),
    'key-id': Flags.string({
      description: 'Only requests made with the API key of this id (payorch server keys list)',
    }),
  };

  protected override needsServer = "the request log is kept by the server that answers the job's requests";

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsTail);
    const statuses = flags.status?.map((st) => st.trim().toLowerCase());
    for (const st of statuses ?? [])
      if (!/^[1-5](xx|[0-9]{2})$/.test(st))
        throw new CliError(`--status takes a status (404) or a class (4xx, 5xx); got "${st}".`, EXIT.USAGE);
    const methods = flags.method?.map((m) => m.trim().toUpperCase());
    for (const m of methods ?? [])
      if (!/^[A-Z]+$/.test(m)) throw new CliError(`--method takes HTTP methods (GET, POST …); got "${m}".`, EXIT.USAGE);
    const requestStatus = flags['request-status']?.trim().toLowerCase();
    if (requestStatus !== undefined && requestStatus !== 'succeeded' && requestStatus !== 'failed')
      throw new CliError(`--request-status takes succeeded or failed; got "${flags['request-status']}".`, EXIT.USAGE);
    const ips = flags['ip-address']?.map((ip) => ip.trim());
    for (const [flag, value] of [
      ['--ip-address', ips?.find((ip) => ip === '')],
      ['--request-id', flags['request-id']?.trim()],
      ['--key-id', flags['key-id']?.trim()],
    ] as const)
      if (value === '') throw new CliError(`${flag} takes a value; got a blank one.`, EXIT.USAGE);
    const path = flags.path === undefined ? undefined : flags.path.startsWith('/') ? flags.path : `/${flags.path}`;
    const filters = {
      status: statuses?.join(','),
      path,
      method: methods?.join(','),
      request_status: requestStatus as 'succeeded' | 'failed' | undefined,
      ip_address: ips?.join(','),
      request_id: flags['request-id']?.trim(),
      api_key: flags['key-id']?.trim(),
    };
    const described = [
      statuses && `status ${statuses.join(', ')}`,
      path && `paths under ${path}`,
      methods && `method ${methods.join(', ')}`,
      requestStatus,
      ips && `from ${ips.join(', ')}`,
      filters.request_id && `request ${filters.request_id}`,
      filters.api_key && `key ${filters.api_key}`,
    ].filter(Boolean);
    const stop = untilStopped();
    try {
      const client = await this.client(flags);
      const start = await Promise.race([
        client.requestLog.read({ limit: 1 }, POLL),
        stop.stopped.then(() => undefined),
      ]);
      if (!start) return;
      let after = start.next_after;
      this.notice(
        `Ready: following the request log of ${client.baseUrl}${described.map((d) => `, ${d}`).join('')}. Ctrl-C to stop.`,
      );
      const read = async () => {
        const entries: RequestLogEntry[] = [];
        for (;;) {
          const page = await client.requestLog.read({ ...filters, after, limit: 100 }, POLL);
          entries.push(...page.data);
          after = page.next_after;
          if (!page.has_more) return entries;
        }
      };
      for await (const entry of follow(read, stop, (m) => this.notice(m), `the request log of ${client.baseUrl}`)) {
        this.io.stdout.write((this.jsonMode ? jsonLine(entry) : safeText(requestLogLine(entry))) + '\n');
      }
    } finally {
      stop.dispose();
    }
  }
}
