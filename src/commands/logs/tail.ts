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
    'Method, path (no query string), status, duration and request id — never headers, bodies or keys. Starts from now; Ctrl-C stops. `--json`: one JSON entry per line.';
  static override examples = [
    '<%= config.bin %> logs tail',
    '<%= config.bin %> logs tail --status 4xx --path /sessions',
    '<%= config.bin %> logs tail --status 500 --json',
  ];
  static override flags = {
    status: Flags.string({ description: 'Only this status (404) or class (4xx, 5xx)' }),
    path: Flags.string({ description: 'Only paths that start with this (e.g. /sessions)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsTail);
    if (flags.status !== undefined && !/^[1-5](xx|[0-9]{2})$/i.test(flags.status))
      throw new CliError(`--status takes a status (404) or a class (4xx, 5xx); got "${flags.status}".`, EXIT.USAGE);
    const path = flags.path === undefined ? undefined : flags.path.startsWith('/') ? flags.path : `/${flags.path}`;
    const filters = { status: flags.status?.toLowerCase(), path };
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
        `Ready: following the request log of ${client.baseUrl}${flags.status ? `, status ${flags.status}` : ''}${path ? `, paths under ${path}` : ''}. Ctrl-C to stop.`,
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
