// The README's ten-line test of a lost answer after commit ("Rehearsing failures") runs as written: the block after
// its `readme-snippet: lost-answer` marker, with `startServer`, `Client` and `assert` as the README's imports give them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Client, startServer } from '../../dist/index.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README "Rehearsing failures"', () => {
  it('the lost-answer snippet passes: one payment after the retry', async () => {
    const m = /<!-- readme-snippet: lost-answer[^>]*-->\n```ts\n([\s\S]*?)```/.exec(readme);
    expect(m, 'the snippet marker').not.toBeNull();
    const code = m![1]!;
    expect(code.trim().split('\n').length).toBeLessThanOrEqual(10);
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
      ...args: string[]
    ) => (...a: unknown[]) => Promise<void>;
    await new AsyncFunction('startServer', 'Client', 'assert', code)(startServer, Client, assert);
  });
});
