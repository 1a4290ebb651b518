// The local server's snapshots (docs/api.md "Snapshots"): with a key of the data directory's default account.
import type { DeletedSnapshot, SnapshotInfo, SnapshotList, SnapshotRestore } from '../../contract/snapshots.js';
import { enc, type CallOptions, type Requester } from './base.js';

export class SnapshotsResource {
  constructor(private readonly c: Requester) {}

  list(options?: CallOptions): Promise<SnapshotList> {
    return this.c.request('GET', '/test-helpers/snapshots', options);
  }

  /** Saves a snapshot of the database as `name` (replacing one of that name). */
  save(name: string, options?: CallOptions): Promise<SnapshotInfo> {
    return this.c.request('POST', '/test-helpers/snapshots', { body: { name }, ...options });
  }

  /** Puts the database back to snapshot `name`. */
  restore(name: string, options?: CallOptions): Promise<SnapshotRestore> {
    return this.c.request('POST', `/test-helpers/snapshots/${enc(name)}/restore`, { body: {}, ...options });
  }

  delete(name: string, options?: CallOptions): Promise<DeletedSnapshot> {
    return this.c.request('DELETE', `/test-helpers/snapshots/${enc(name)}`, options);
  }
}
