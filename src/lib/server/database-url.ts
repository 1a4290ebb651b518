// A PostgreSQL URL as people and logs may see it: without its password. No driver is loaded here, so the CLI can
// name a database in its messages without paying for one.

/** What is wrong with a database URL, if anything: the rules the CLI and the library both check (each words them). */
export type DatabaseUrlProblem =
  | { kind: 'not_a_url' }
  | { kind: 'not_postgres'; protocol: string }
  | { kind: 'no_database' };

/** Undefined when `url` is a postgres:// or postgresql:// URL that names a database. */
export function databaseUrlProblem(url: string): DatabaseUrlProblem | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { kind: 'not_a_url' };
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return { kind: 'not_postgres', protocol: u.protocol };
  if (u.pathname.replace(/^\//, '') === '') return { kind: 'no_database' };
  return undefined;
}

/** `url` with its password left out: postgres://user@host:port/db. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return `${u.protocol}//${u.username ? `${u.username}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'the PostgreSQL database (its URL could not be read)';
  }
}

/** The URL's password as written and decoded (none when it has none, or cannot be read). */
export function urlPasswords(url: string): string[] {
  try {
    const { password } = new URL(url);
    if (!password) return [];
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // a malformed escape: the password as written is all there is
    }
    return [...new Set([password, decoded])];
  } catch {
    return [];
  }
}

/** `text` with the URL's password replaced by `***` wherever it appears. */
export function withoutPassword(text: string, url: string): string {
  let out = text;
  for (const p of urlPasswords(url)) out = out.split(p).join('***');
  return out;
}
