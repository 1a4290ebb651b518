// Views of the local server's snapshots (`payorch server snapshot list`).
import type { SnapshotInfo } from '../../contract/snapshots.js';
import { formatTime } from '../format.js';
import type { Column } from '../render.js';

/** 1536 → "1.5 KB", 111484928 → "106.3 MB" (powers of 1024). */
export function formatSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${n.toFixed(1)} ${units[u]}`;
}

export const snapshotColumns: Column<SnapshotInfo>[] = [
  { header: 'NAME', value: (s) => s.name },
  { header: 'SIZE', value: (s) => formatSize(s.size) },
  { header: 'SCHEMA', value: (s) => String(s.schema_version), optional: true },
  { header: 'SAVED', value: (s) => formatTime(s.created_at), optional: true },
];
