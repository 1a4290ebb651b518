import { Flags } from '@oclif/core';
import { ApiCommand } from '../../../lib/cli/base.js';
import { CliError, EXIT } from '../../../lib/cli/errors.js';
import { faultRuleLine } from '../../../lib/output/views/faults.js';
import { HTTP_METHODS } from '../../../lib/contract/prefix.js';

export default class ServerFaultsAdd extends ApiCommand {
  static override summary =
    "Add a fault rule for your account's requests (method, path glob) or webhook deliveries (test mode)";
  static override description =
    'The fault uses the Payorch-Simulate grammar: status=503, status=429;retry_after=2, latency=1500ms, reset, after_commit=reset, after_commit=status=500; for webhook deliveries status=NNN, drop, reset, latency=…. --count stops after N injections; --rate injects a share of the matches, deterministically (0.5: the 2nd, 4th, …). See docs/api.md "Fault injection".';
  static override examples = [
    "<%= config.bin %> server faults add --fault after_commit=reset --method POST --path '/sessions/*/confirm' --count 1",
    "<%= config.bin %> server faults add --fault 'status=503' --path '/payments/**' --rate 0.5",
    '<%= config.bin %> server faults add --fault reset --webhook-endpoint we_… --count 2',
  ];
  static override flags = {
    fault: Flags.string({ description: 'The fault (Payorch-Simulate grammar)', required: true }),
    method: Flags.option({
      options: HTTP_METHODS,
      description: 'Requests: the method (default any)',
    })(),
    path: Flags.string({
      description: "Requests: a path glob under the base URL, * within a segment, ** across (default '/**')",
    }),
    'webhook-endpoint': Flags.string({
      description: "Webhook deliveries to this endpoint (we_…, or '*' for all of them) instead of requests",
      exclusive: ['method', 'path'],
    }),
    count: Flags.integer({ description: 'Inject at most this many times, then stop', min: 1 }),
    rate: Flags.string({ description: 'Inject into this share of the matches, 0 to 1 (default 1)' }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(ServerFaultsAdd);
    const rate = flags.rate === undefined ? undefined : Number(flags.rate);
    if (rate !== undefined && !(flags.rate!.trim() !== '' && rate >= 0 && rate <= 1))
      throw new CliError(`--rate takes a number from 0 to 1; got "${flags.rate}".`, EXIT.USAGE);
    const client = await this.client(flags);
    if (this.inProcess) {
      // A rule lives in a running server's memory: added to the server inside this command, it would end with it.
      throw new CliError(
        'No server is running to keep the rule: fault rules live in a running server. Start one (`payorch server start`, or `--detach`), then add the rule.',
        EXIT.USAGE,
        'no_server',
      );
    }
    const rule = await client.faultRules.add({
      fault: flags.fault,
      ...(flags.method ? { method: flags.method } : {}),
      ...(flags.path !== undefined ? { path: flags.path.startsWith('/') ? flags.path : `/${flags.path}` } : {}),
      ...(flags['webhook-endpoint'] !== undefined ? { webhook_endpoint: flags['webhook-endpoint'] } : {}),
      ...(flags.count !== undefined ? { count: flags.count } : {}),
      ...(rate !== undefined ? { rate } : {}),
    });
    return this.print(rule, () => faultRuleLine(rule));
  }
}
