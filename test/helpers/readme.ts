// The README's snippets that tests run as written: each fenced block follows a marker `<!-- readme-snippet: NAME -->`.
import { readFileSync } from 'node:fs';

/** The README as it is in the repository. */
export const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The fenced block of `lang` right after the README marker `readme-snippet: NAME` (of `text`, the README by default). */
export function readmeSnippet(name: string, lang: string, text = README): string {
  const m = new RegExp(`<!-- readme-snippet: ${name}\\b[^>]*-->\\n\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(text);
  if (!m) throw new Error(`README has no ${lang} snippet "${name}"`);
  return m[1]!;
}
