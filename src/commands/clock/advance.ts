import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { durationTarget } from '../../lib/cli/billing.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { clockRunColumns } from '../../lib/output/views/billing.js';
import { tableText } from '../../lib/output/render.js';
import { formatTime } from '../../lib/output/format.js';
import { isHousekeeping, MAX_CLOCK_ADVANCE_SECONDS } from '../../lib/contract/limits.js';
import type { ClockState } from '../../lib/contract/meta.js';
import { DAY_S } from '../../lib/contract/time.js';

export default class ClockAdvance extends ApiCommand {
  static override summary =
    "Move the account's test clock forward and run everything that came due (renewals, dunning, expiries…)";
  static override examples = [
    '<%= config.bin %> clock advance 30d',
    '<%= config.bin %> clock advance 1mo',
    '<%= config.bin %> clock advance 1d12h',
    '<%= config.bin %> clock advance --to 2027-01-01',
  ];
  static override args = {
    duration: Args.string({
      description:
        'How far: 30d, 12h, 90m, 45s, 2w, 1mo, 1y, 1d12h (mo, y: calendar months, as subscriptions renew; from the last day of a month, 1mo goes to the last day of the next)',
    }),
  };
  static override flags = {
    to: Flags.string({ description: 'Advance to this date/time (ISO 8601, e.g. 2027-01-01 or 2027-01-01T09:00:00Z)' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ClockAdvance);
    if ((args.duration === undefined) === (flags.to === undefined))
      throw new CliError('Give a duration (e.g. 30d) or --to DATE, not both.', EXIT.USAGE);
    let to: string | undefined;
    if (flags.to !== undefined) {
      const ms = Date.parse(flags.to);
      if (Number.isNaN(ms)) throw new CliError(`--to takes an ISO date or time (got "${flags.to}").`, EXIT.USAGE);
      to = new Date(ms).toISOString();
    }
    if (args.duration !== undefined) durationTarget(args.duration, 0); // a malformed duration: exit 2 before any request
    const client = await this.client(flags);
    await this.confirmChange(
      `advance the test clock ${to !== undefined ? `to ${to}` : `by ${args.duration}`} and run what comes due`,
      flags.yes,
    );
    // Every step names its target time (`to`), so that a retried step never moves the clock twice. The server
    // moves it at most MAX_CLOCK_ADVANCE_SECONDS per call; on a terminal the steps are a month at most, with
    // progress shown, since a year of renewals can take a while.
    const start = (await client.testClock.retrieve()).now;
    const target = to !== undefined ? Math.ceil(Date.parse(to) / 1000) : durationTarget(args.duration!, start);
    const progress = !flags.json && Boolean(process.stderr.isTTY);
    const stepSeconds = progress ? Math.min(MAX_CLOCK_ADVANCE_SECONDS, 31 * DAY_S) : MAX_CLOCK_ADVANCE_SECONDS;
    const steps = Math.max(1, Math.ceil((target - start) / stepSeconds));
    const ran: ClockState['ran'] = [];
    let state: ClockState | undefined;
    for (let step = 0; step < steps; step++) {
      const last = step === steps - 1;
      const body = last && to !== undefined ? { to } : { to: Math.min(target, start + (step + 1) * stepSeconds) };
      const key =
        flags['idempotency-key'] && (step === 0 ? flags['idempotency-key'] : `${flags['idempotency-key']}.${step}`);
      if (progress && steps > 1) process.stderr.write(`\rAdvancing the clock: step ${step + 1} of ${steps}…`);
      state = await client.testClock.advance(body, { idempotencyKey: key });
      ran.push(...state.ran);
    }
    if (progress && steps > 1) process.stderr.write('\r\x1b[K');
    state = { ...state!, ran };
    // A person is told what came due for the account's objects; --json keeps the server's clean-up too.
    return await this.print(state, async () => {
      const head = `Clock now ${formatTime(state.now_iso)}.`;
      const news = state.ran.filter((r) => !isHousekeeping(r));
      if (!news.length) return `${head}\nNothing came due.`;
      return `${head}\nWhat came due:\n${await tableText(news, clockRunColumns)}`;
    });
  }
}
