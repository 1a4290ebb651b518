// What every engine's snapshots share (docs/api.md "Snapshots"): the names a snapshot may have, its errors, and when a
// saved database may replace the live one. Below the server, the HTTP routes and the adapters, which all speak them.

/** Letters, digits, `.`, `_`, `-`; starting with a letter or digit (no hidden files, no `..`); at most 64. */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export type SnapshotErrorCode = 'invalid_name' | 'snapshot_missing' | 'invalid_snapshot' | 'snapshots_unavailable';

export class SnapshotError extends Error {
  constructor(
    readonly code: SnapshotErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

/** `name` if it can name a snapshot, else the error that says what names can be. */
export function checkName(name: string): string {
  if (!name.trim())
    throw new SnapshotError('invalid_name', 'A snapshot needs a name (letters, digits, `.`, `_` and `-`).');
  if (!SNAPSHOT_NAME.test(name)) {
    throw new SnapshotError(
      'invalid_name',
      `Invalid snapshot name ${JSON.stringify(name.slice(0, 80))}: use 1–64 letters, digits, \`.\`, \`_\` and \`-\`, starting with a letter or digit.`,
    );
  }
  return name;
}

/** The error for a snapshot `name` that is not there, naming those there are (`have`, sorted). */
export function missingSnapshot(name: string, have: string[]): SnapshotError {
  return new SnapshotError(
    'snapshot_missing',
    `No snapshot named ${JSON.stringify(name)}${have.length ? ` (snapshots: ${have.join(', ')})` : ' (there are no snapshots yet: `payorch server snapshot save NAME`)'}.`,
  );
}

/** The error for snapshot `label` that cannot replace the live database, saying `why`. */
export function unrestorable(label: string, why: string): SnapshotError {
  return new SnapshotError('invalid_snapshot', `Snapshot ${label} cannot be restored: ${why}. Nothing was changed.`);
}

/**
 * Checks what a saved database says of itself (its schema version, the sealing-key check it carries) against this
 * build's `schema` and this data directory's `keyCheck`. Returns its schema version; throws `unrestorable`.
 */
export function checkRestorable(
  found: { schema: number; keyCheck?: string },
  schema: number,
  keyCheck: string,
  label: string,
): number {
  if (found.schema > schema)
    throw unrestorable(label, `it was written by a newer payorch (schema ${found.schema}; this build knows ${schema})`);
  if (found.keyCheck !== undefined && found.keyCheck !== keyCheck) {
    throw unrestorable(label, 'it was taken of another data directory (its secrets are sealed with another key)');
  }
  return found.schema;
}
