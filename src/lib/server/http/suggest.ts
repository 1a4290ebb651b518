// "Did you mean …?" for an unknown request field: the nearest field the schema knows at that place or one level
// below it (`email` → `customer.email`). Only runs when a request already failed.
import { createRequire } from 'node:module';

type Distance = (a: string, b: string) => number;
let distance: Distance | undefined;
/** fastest-levenshtein, loaded on the first unknown field rather than at start-up (it is only needed here). */
function levenshtein(a: string, b: string): number {
  distance ??= (createRequire(import.meta.url)('fastest-levenshtein') as { distance: Distance }).distance;
  return distance(a, b);
}

interface ObjectSchema {
  properties?: Record<string, ObjectSchema & { anyOf?: ObjectSchema[] }>;
}

/** Spelling differences that are no mistake of meaning: case, `_`, `-`. */
const fold = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

/**
 * The known field nearest to `unknown`, as a path from the same place (`prefix` + name), or undefined when none
 * is close (see `edits`) after folding case and separators, and never for names of one or two characters.
 */
export function nearestField(unknown: string, parent: unknown, prefix: string): string | undefined {
  const schema = parent as ObjectSchema | undefined;
  if (!schema?.properties || unknown.length < 3) return undefined;
  const candidates: { path: string; leaf: string; depth: number }[] = [];
  for (const [name, child] of Object.entries(schema.properties)) {
    candidates.push({ path: name, leaf: name, depth: 0 });
    const nested = child.properties ?? child.anyOf?.find((b) => b.properties)?.properties;
    for (const inner of Object.keys(nested ?? {})) candidates.push({ path: `${name}.${inner}`, leaf: inner, depth: 1 });
  }
  const target = fold(unknown);
  let best: { path: string; score: number } | undefined;
  for (const c of candidates) {
    const score = Math.min(levenshtein(target, fold(c.leaf)), levenshtein(target, fold(c.path))) * 2 + c.depth;
    if (!best || score < best.score) best = { path: c.path, score };
  }
  // Up to one edit in three characters, at least two (a swapped pair: emial → email), one for short names.
  const edits = target.length <= 3 ? 1 : Math.max(2, Math.floor(target.length / 3));
  if (!best || best.score > 2 * edits + 1) return undefined;
  return prefix ? `${prefix}.${best.path}` : best.path;
}
