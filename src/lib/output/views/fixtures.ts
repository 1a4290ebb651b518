// Views of fixture runs (`payorch fixtures run`) and of the built-in fixtures (`fixtures list`).
import type { FixtureStepResult } from '../../fixtures/run.js';
import { color, printable, type Column } from '../render.js';

/** What a step's answer is, in a few words: `customer cus_…`, `list of 3`, `deleted product prod_…`. */
function answerSummary(response: unknown): string {
  if (typeof response !== 'object' || response === null) return '';
  const r = response as Record<string, unknown>;
  if (r.object === 'list' && Array.isArray(r.data)) return `list of ${r.data.length}`;
  if (typeof r.error === 'object' && r.error !== null)
    return `error ${String((r.error as Record<string, unknown>).code ?? '')}`;
  const id = typeof r.id === 'string' ? r.id : typeof r.token_id === 'string' ? r.token_id : '';
  return [r.deleted === true ? 'deleted' : '', typeof r.object === 'string' ? r.object : '', id]
    .filter(Boolean)
    .join(' ');
}

/** A step's line as it finishes: name, request, status, what came back; a replay is marked. */
export function fixtureStepLine(s: FixtureStepResult): string {
  const c = color();
  const mark = s.status >= 400 ? c.yellow('!') : c.green('✓');
  const replayed = s.replayed ? `  ${c.dim('(replayed)')}` : '';
  return `${mark} ${c.bold(printable(s.name))}  ${printable(s.method)} ${printable(s.path)}  ${s.status}  ${printable(answerSummary(s.response))}${replayed}`;
}

/** The last line of a run. */
export function fixtureRunSummary(steps: FixtureStepResult[]): string {
  const replayed = steps.filter((s) => s.replayed).length;
  const n = `${steps.length} step${steps.length === 1 ? '' : 's'}`;
  if (replayed === 0) return `Ran ${n}.`;
  return `Ran ${n}; ${replayed} replayed the answer saved when this file last ran (nothing created twice; --fresh creates anew).`;
}

export interface BuiltinFixtureRow {
  name: string;
  steps: number;
  when: string;
}

export const builtinFixtureColumns: Column<BuiltinFixtureRow>[] = [
  { header: 'NAME', value: (f) => f.name },
  { header: 'STEPS', value: (f) => String(f.steps) },
  { header: 'THE EVENT HAPPENS WHEN', value: (f) => f.when, shrink: 'wrap' },
];
