// Snapshots of the local server's database (docs/api.md "Snapshots"): what the snapshot routes answer.

export interface SnapshotInfo {
  object: 'snapshot';
  name: string;
  /** Bytes on disk. */
  size: number;
  /** ISO 8601: when it was saved. */
  created_at: string;
  /** The newest migration the snapshot's database has (an older one is migrated when restored). */
  schema_version: number;
}

export interface SnapshotList {
  object: 'list';
  data: SnapshotInfo[];
  has_more: false;
  url: string;
}

export interface SnapshotRestore {
  object: 'snapshot_restore';
  name: string;
  /** How long requests were held (ms): from the gate closing to its opening again. */
  paused_ms: number;
  /** The whole restore (ms), the snapshot's check and copy before requests were held included. */
  took_ms: number;
}

export type DeletedSnapshot = SnapshotInfo & { deleted: true };
