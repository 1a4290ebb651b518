// A word as a POSIX shell reads it, for the commands the CLI and the server print for a user to run.

/** A word for a POSIX shell: quoted when it holds anything but plain path characters. */
export const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
