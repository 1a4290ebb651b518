import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../lib/cli/base.js';
import { checkEventType, eventCatalog } from '../lib/cli/events.js';
import { CliError, EXIT } from '../lib/cli/errors.js';
import { checkEditAlone, dataEditFlags } from '../lib/cli/fixture-flags.js';
import type { TargetFlags } from '../lib/cli/target.js';
import { safeText, tableText } from '../lib/output/render.js';
import { eventColumns } from '../lib/output/views/events.js';
import { fixtureRunSummary, fixtureStepLine } from '../lib/output/views/fixtures.js';
import { threedsCommand } from '../lib/output/views/payments.js';
import { amountFlag } from '../lib/cli/amount.js';

export default class Trigger extends ApiCommand {
  static override summary =
    'Make an event happen for real (creates the objects that produce it) and show the events it caused';
  static override description =
    "The server runs the event's scenario in one transaction. Its named steps (`--list` shows them: session, payment, customer …, each the body of one API request, named as in `fixtures show EVENT`) take the Stripe CLI's flags: --override STEP:PARAM=VALUE replaces a param, --add sets it where the step has none, --remove STEP:PARAM drops it, --skip STEP leaves out a step whose id a later step takes as a param (give that param with --override). --raw '<fixture JSON>' runs a fixture of your own instead of the scenario, and --edit opens the event's built-in fixture in your editor first; both run through the fixture runner (not one transaction; time-driven events move the account's clock). README \"Fixtures\".";
  static override examples = [
    '<%= config.bin %> trigger payment.captured',
    '<%= config.bin %> trigger payment.captured --amount 500 --currency eur --json',
    '<%= config.bin %> trigger payment.captured --override session:amount=500 --add session:metadata.order=42',
    '<%= config.bin %> trigger payment.failed --override payment:token_id=tok_chargeDeclinedInsufficientFunds',
    '<%= config.bin %> trigger subscription.created --skip customer --override subscription:customer=cus_123',
    '<%= config.bin %> trigger --list',
    '<%= config.bin %> trigger payment.captured --edit',
    `<%= config.bin %> trigger --raw '{"fixtures": [{"name": "customer", "path": "/customers", "method": "post", "params": {"email": "a@example.com"}}]}'`,
  ];
  static override args = {
    // Piped stdin is never an argument (BaseCommand.parse): `--raw -` reads it.
    event: Args.string({ description: 'Event type, e.g. payment.captured (`--list` shows every type)' }),
  };
  static override flags = {
    list: Flags.boolean({ description: 'List every event type, when it happens, and the steps of its scenario' }),
    amount: amountFlag({ description: 'Amount in minor units, for scenarios that take one' }),
    currency: Flags.string({ description: 'Currency, for scenarios that take one' }),
    ...dataEditFlags,
    edit: Flags.boolean({
      description:
        "Open the event's built-in fixture in your editor ($VISUAL, $EDITOR, else vi) and run it as saved, through the fixture runner (at a terminal; not with --override/--add/--remove/--skip)",
    }),
    raw: Flags.string({
      helpValue: 'JSON',
      description:
        "Run this fixture (the Stripe CLI's format, or - to read it from stdin) instead of the event's scenario, through the fixture runner",
    }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Trigger);
    if (flags.list) return this.list();
    checkEditAlone(flags);
    if (flags.raw !== undefined || flags.edit) return this.runFixture(args.event, flags);
    if (args.event === undefined)
      throw new CliError(
        'Name the event type to trigger (e.g. payment.captured), or pass --list to see them all.',
        EXIT.USAGE,
      );
    const type = await checkEventType('EVENT', args.event);
    const [{ parseEdits }, { triggerSteps }] = await Promise.all([
      import('../lib/fixtures/edits.js'),
      import('../lib/contract/trigger-steps.js'),
    ]);
    const edits = parseEdits(flags);
    const steps = triggerSteps(type).map((s) => s.name);
    const list = steps.length ? `its steps: ${steps.join(', ')}` : 'it has no steps to change';
    for (const [flag, step] of [
      ...edits.map((e) => [`--${e.op} ${e.step}:${e.param}`, e.step] as const),
      ...(flags.skip ?? []).map((name) => [`--skip ${name}`, name] as const),
    ])
      if (!steps.includes(step))
        throw new CliError(`${flag}: ${type} has no step "${step}" (${list}; \`payorch trigger --list\`).`, EXIT.USAGE);
    const client = await this.client(flags);
    await this.confirmChange(`trigger ${type} (creates the objects that produce it)`, flags.yes);
    const pick = (op: string) =>
      edits
        .filter((e) => e.op === op)
        .map((e) =>
          op === 'remove' ? { step: e.step, param: e.param } : { step: e.step, param: e.param, value: e.value },
        );
    const out = await client.testHelpers.trigger(
      type,
      {
        amount: flags.amount,
        currency: flags.currency,
        ...(flags.override?.length ? { override: pick('override') } : {}),
        ...(flags.add?.length ? { add: pick('add') } : {}),
        ...(flags.remove?.length ? { remove: pick('remove') } : {}),
        ...(flags.skip?.length ? { skip: flags.skip } : {}),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.print(out, async () => {
      const objects = Object.entries(out.objects ?? {})
        .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(', ');
      const session = out.objects?.payment_session;
      const next =
        out.event_type === 'payment.requires_action' && typeof session === 'string'
          ? [`Next: run \`${threedsCommand(session)}\` to complete the 3D Secure challenge.`]
          : [];
      return [
        `Triggered ${out.event_type}: ${out.events.length} event${out.events.length === 1 ? '' : 's'}.`,
        await tableText(out.events, eventColumns),
        ...(objects ? [`Objects: ${objects}`] : []),
        ...next,
      ].join('\n');
    });
  }

  /** Every type, when it happens, and its scenario's named steps. */
  private async list(): Promise<unknown> {
    const [{ EVENT_TYPES, eventTypes }, { triggerSteps }] = await Promise.all([
      eventCatalog(),
      import('../lib/contract/trigger-steps.js'),
    ]);
    const types = eventTypes.map((type) => ({
      type,
      object: EVENT_TYPES[type].object,
      when: EVENT_TYPES[type].when,
      steps: triggerSteps(type),
    }));
    return this.print(types, () =>
      tableText(types, [
        { header: 'TYPE', value: (t) => t.type },
        { header: 'STEPS', value: (t) => t.steps.map((s) => s.name).join(' ') || '-', shrink: 'wrap' },
        { header: 'WHEN', value: (t) => t.when, shrink: 'wrap' },
      ]),
    );
  }

  /**
   * --raw / --edit: a fixture (the given one, or the event's built-in one as edited) through the fixture runner,
   * with fresh idempotency keys (a trigger makes its event anew each time).
   */
  private async runFixture(
    event: string | undefined,
    flags: TargetFlags & {
      raw?: string;
      edit?: boolean;
      amount?: number;
      currency?: string;
      override?: string[];
      add?: string[];
      remove?: string[];
      skip?: string[];
      yes?: boolean;
      'idempotency-key'?: string;
    },
  ): Promise<unknown> {
    const which = flags.edit ? '--edit' : '--raw';
    if (flags.raw !== undefined && flags.edit)
      throw new CliError('--raw and --edit: give one (--edit opens the built-in fixture of EVENT).', EXIT.USAGE);
    for (const [name, given] of [
      ['--amount', flags.amount !== undefined],
      ['--currency', flags.currency !== undefined],
      ['--idempotency-key', flags['idempotency-key'] !== undefined],
    ] as const)
      if (given)
        throw new CliError(
          `${name} is for the server's scenario; with ${which} the fixture says what is sent (change it there, or with --override).`,
          EXIT.USAGE,
        );
    const type = event === undefined ? undefined : await checkEventType('EVENT', event);
    const { runFixtures, parseEdits, readFixtureFile } = await import('../lib/fixtures/run.js');
    let input;
    if (flags.edit) {
      if (type === undefined)
        throw new CliError(
          '--edit opens the built-in fixture of an event type: name it (e.g. payment.captured).',
          EXIT.USAGE,
        );
      const [{ builtinFixture }, { editInEditor }, { jsonText }] = await Promise.all([
        import('../lib/fixtures/builtin.js'),
        import('../lib/cli/editor.js'),
        import('../lib/output/render.js'),
      ]);
      const name = `${type}.json`;
      input = await readFixtureFile(
        name,
        editInEditor(this.io, this.jsonMode, name, `${jsonText(builtinFixture(type))}\n`),
      );
    } else {
      const raw = flags.raw === '-' ? this.io.readStdin() : flags.raw!;
      if (raw.trim() === '')
        throw new CliError('--raw is blank; give the fixture as JSON (or - to read stdin).', EXIT.USAGE);
      input = await readFixtureFile('--raw', raw);
    }
    const edits = parseEdits(flags);
    const client = await this.client(flags);
    await this.confirmChange(`run the fixture of ${which}${type ? ` (${type})` : ''}`, flags.yes);
    const onStep = this.jsonMode
      ? undefined
      : (s: Parameters<typeof fixtureStepLine>[0]) => this.io.stdout.write(`${safeText(fixtureStepLine(s))}\n`);
    const run = await runFixtures(client, input, { env: this.io.env, fresh: true, edits, skip: flags.skip, onStep });
    return this.print(run.responses, () => fixtureRunSummary(run.steps));
  }
}
