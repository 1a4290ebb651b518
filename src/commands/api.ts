import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../lib/cli/base.js';
import { CliError, EXIT } from '../lib/cli/errors.js';
import { formData, isFormPair, readJsonData } from '../lib/cli/data.js';
import { ApiError } from '../lib/client/errors.js';
import type { ErrorBody } from '../lib/contract/common.js';
import { jsonText, printable } from '../lib/output/render.js';
import { HTTP_METHODS } from '../lib/contract/prefix.js';

export default class Api extends ApiCommand {
  static override summary = 'Send a raw API request and print the JSON answer';
  static override description =
    'PATH is appended to the base URL (…/functions/v1) as it is: requests only ever go to the configured server. The body comes from --data: inline JSON, @file, - for stdin, or key=value pairs as the Stripe CLI and curl take them (repeat -d; brackets nest: metadata[order]=7, items[0][price]=price_1). The server takes JSON, so the pairs are sent as a JSON object: a plain whole number (100) becomes a number and true/false a boolean, except under metadata (always strings); anything else is a string — for a number-like string elsewhere, send JSON. A GET or DELETE has no body: its pairs are sent as the query string, as typed (-d limit=3), as the Stripe CLI sends them. --expand asks the server to expand a field (expand[]=FIELD in the query string, as Stripe takes it); the server answers 400 where a field cannot be expanded. The answer is printed exactly, secrets included.';
  static override examples = [
    '<%= config.bin %> api GET /sessions',
    '<%= config.bin %> api GET /products -d limit=3 -d active=true',
    '<%= config.bin %> api POST /create-session -d amount=1999 -d currency=usd -d "metadata[order]=7"',
    '<%= config.bin %> api POST /create-session --data \'{"amount":1999,"currency":"usd"}\'',
    "echo '{}' | <%= config.bin %> api POST /sessions/ID/cancel --data -",
    '<%= config.bin %> api GET /products/ID --expand prices',
  ];
  static override args = {
    method: Args.string({
      required: true,
      options: [...HTTP_METHODS, ...HTTP_METHODS.map((m) => m.toLowerCase())],
      description: 'HTTP method',
    }),
    path: Args.string({ required: true, description: 'Path, e.g. /sessions/ID (query string allowed)' }),
  };
  static override flags = {
    data: Flags.string({
      char: 'd',
      description:
        'Body: JSON (inline, @file or - for stdin), or key=value (repeatable; brackets nest); of a GET or DELETE, key=value query parameters',
      multiple: true,
    }),
    expand: Flags.string({
      description: 'Expand this field of the answer (expand[]=FIELD; repeatable)',
      multiple: true,
    }),
    query: Flags.string({ char: 'q', description: 'Query parameter key=value (repeatable)', multiple: true }),
    'idempotency-key': idempotencyFlag,
    include: Flags.boolean({ char: 'i', description: 'Print the status line and headers to stderr' }),
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Api);
    const method = args.method.toUpperCase();
    // As the Stripe CLI sends them: -d of a GET or DELETE (which take no body) is the query string.
    const inQuery = method === 'GET' || method === 'DELETE';
    const body = inQuery ? undefined : requestBody(flags.data);
    const query: Record<string, string | string[]> = {};
    for (const pair of flags.query ?? []) {
      const i = pair.indexOf('=');
      if (i <= 0) throw new CliError(`--query takes key=value (got "${pair}").`, EXIT.USAGE);
      query[pair.slice(0, i)] = pair.slice(i + 1);
    }
    if (flags.expand?.length) query.expand = flags.expand;
    const typed = args.path.startsWith('/') ? args.path : `/${args.path}`;
    // PATH is appended to the base URL as text (never parsed as a URL), so it cannot name another host; what
    // an HTTP request line cannot carry is refused here rather than half-sent.
    if (/[\u0000-\u0020\u007f]/.test(typed))
      throw new CliError(
        'PATH must not contain spaces or control characters (percent-encode them, e.g. %20).',
        EXIT.USAGE,
      );
    const path = inQuery ? withQuery(typed, method, flags.data) : typed;
    const client = await this.client(flags);
    if (method !== 'GET') await this.confirmChange(`${method} ${path}`, flags.yes);
    const res = await client.raw(method, path, { body, query, idempotencyKey: flags['idempotency-key'] });
    if (flags.include) {
      // Header values may carry C1 controls (the one-byte CSI): shown escaped, as every view is.
      this.io.stderr.write(
        `HTTP ${res.status}\n${Object.entries(res.headers)
          .map(([k, v]) => `${printable(k)}: ${printable(v)}`)
          .join('\n')}\n\n`,
      );
    }
    if (res.status >= 400) throw new ApiError(res.status, res.body as ErrorBody, res.headers);
    return await this.print(res.body, () => jsonText(res.body));
  }
}

/**
 * `path` with -d's key=value pairs after it as its query string, each as typed (`limit=1`, `metadata[order]=7`,
 * `expand[]=prices`: the brackets are the server's to read), in order; JSON is refused: a GET or DELETE has no body.
 */
function withQuery(path: string, method: string, data: string[] | undefined): string {
  if (!data?.length) return path;
  const pairs = data.filter(isFormPair);
  if (pairs.length !== data.length)
    throw new CliError(
      `A ${method} request has no body: its -d takes key=value pairs, sent as the query string (-d limit=3), not JSON, @file or -.`,
      EXIT.USAGE,
    );
  formData(pairs); // the same checks of the keys as a body's
  const query = new URLSearchParams(
    pairs.map((pair): [string, string] => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  ).toString();
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

/** -d's values: one JSON body (inline, @file, -), or key=value pairs made into one JSON object; not both. */
function requestBody(data: string[] | undefined): unknown {
  if (!data?.length) return undefined;
  const pairs = data.filter(isFormPair);
  if (pairs.length === data.length) return formData(pairs);
  if (data.length === 1) return readJsonData(data[0]!);
  throw new CliError(
    '-d takes either one JSON body (inline, @file or -) or key=value pairs, not several JSON bodies or both.',
    EXIT.USAGE,
  );
}
