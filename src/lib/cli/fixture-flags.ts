// The Stripe CLI's flags that change a fixture's or a trigger's data before it runs (README "Fixtures"):
// --override, --add, --remove, --skip (each repeatable) and --edit.
import { Flags } from '@oclif/core';
import { CliError, EXIT } from './errors.js';

const repeatable = (helpValue: string, description: string) =>
  Flags.string({ multiple: true, multipleNonGreedy: true, helpValue, description });

export const dataEditFlags = {
  override: repeatable(
    'STEP:PARAM=VALUE',
    'Set a param of a step, replacing what is there (repeatable): PARAM is dotted or bracketed (metadata.order, address[country], items.0.price); VALUE is a number, true, false, null or JSON when it reads as one, else text',
  ),
  add: repeatable('STEP:PARAM=VALUE', 'Set a param of a step only where the step has none (repeatable)'),
  remove: repeatable('STEP:PARAM', 'Drop a param of a step (repeatable)'),
  skip: repeatable(
    'STEP',
    'Do not run a step (repeatable); a step that uses its answer must get the value by --override',
  ),
  edit: Flags.boolean({
    description:
      'Open the fixture in your editor ($VISUAL, $EDITOR, else vi) before it runs (at a terminal; not with --override/--add/--remove/--skip)',
  }),
};

export interface DataEditFlagValues {
  override?: string[];
  add?: string[];
  remove?: string[];
  skip?: string[];
  edit?: boolean;
}

/** Whether any of --override/--add/--remove/--skip is given. */
export const hasDataEdits = (f: DataEditFlagValues) =>
  Boolean(f.override?.length || f.add?.length || f.remove?.length || f.skip?.length);

/** --edit with the other flags is refused (as the Stripe CLI says it cannot be used with them): edit the file instead. */
export function checkEditAlone(f: DataEditFlagValues): void {
  if (f.edit && hasDataEdits(f))
    throw new CliError(
      '--edit cannot be used with --override, --add, --remove or --skip: make those changes in the editor.',
      EXIT.USAGE,
    );
  for (const name of f.skip ?? [])
    if (name.trim() === '') throw new CliError('--skip is blank; give a step name.', EXIT.USAGE);
}
