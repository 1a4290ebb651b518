// Text for a shell to read: one word quoted for it, and environment assignments for `eval` in the forms
// `ssh-agent` prints (-s for sh and its kin, -c for csh; fish's own).

export { shellWord } from '../format/shell.js';

export const SHELLS = ['sh', 'csh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `NAME='value'; export NAME;` lines (sh), `setenv NAME 'value';` (csh) or `set -gx NAME 'value';` (fish), one per
 * variable, every value single-quoted whatever it holds. A value with a control character (a newline cannot be
 * quoted for csh) or a name that is not a variable name is refused, never printed half-quoted.
 */
export function envAssignments(vars: Record<string, string>, shell: Shell): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(vars)) {
    if (!NAME.test(name)) throw new Error(`Not a variable name: ${JSON.stringify(name)}`);
    if (/[\u0000-\u001f\u007f]/.test(value))
      throw new Error(`The value of ${name} holds a control character; it is not printed for a shell.`);
    if (shell === 'sh') lines.push(`${name}='${value.replace(/'/g, `'\\''`)}'; export ${name};`);
    // csh: ! is history expansion even inside single quotes.
    else if (shell === 'csh') lines.push(`setenv ${name} '${value.replace(/'/g, `'\\''`).replace(/!/g, `'\\!'`)}';`);
    else lines.push(`set -gx ${name} '${value.replace(/[\\']/g, (c) => `\\${c}`)}';`);
  }
  return lines.join('\n') + '\n';
}

/** The lines that undo `envAssignments` for these names. */
export function envUnsets(names: string[], shell: Shell): string {
  return (
    names
      .map((n) => (shell === 'sh' ? `unset ${n};` : shell === 'csh' ? `unsetenv ${n};` : `set -e ${n};`))
      .join('\n') + '\n'
  );
}
