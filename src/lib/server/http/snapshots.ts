// The snapshot routes of a listening server (docs/api.md "Snapshots"): server administration, not the payments
// API, so they are not in /openapi.json or the route tables. They go through the same pipeline as every route —
// the gate, the caller identified by an API key, rate limits, the contract's error body — and only a key of the
// data directory's default account (the key the CLI uses for it) may use them: a restore replaces every account's
// data. Saving, restoring and deleting are the server's (restore.ts); this file only speaks HTTP.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { API_PREFIX } from '../../contract/common.js';
import { errors, ServiceError } from '../errors.js';
import { SnapshotError } from '../store/snapshot-rules.js';
import type { SnapshotInfo, SnapshotRestore } from '../../contract/snapshots.js';
import type { Gate } from './gate.js';
import type { KnownPaths } from './replies.js';
import type { RouteSpec } from './route.js';

export type RestoreResult = SnapshotRestore;

/** What the server does for these routes. */
export interface SnapshotAdmin {
  /** The account whose keys may use these routes. */
  defaultAccount(): string;
  list(): SnapshotInfo[] | Promise<SnapshotInfo[]>;
  save(name: string): Promise<SnapshotInfo>;
  restore(name: string): Promise<RestoreResult>;
  remove(name: string): SnapshotInfo | Promise<SnapshotInfo>;
}

export const SNAPSHOTS_URL = '/test-helpers/snapshots';

/** The lifecycle (http/lifecycle.ts) reads how a route authenticates from its spec: these take an API key. */
const spec = (method: RouteSpec['method'], url: string, operationId: string, summary: string): RouteSpec => ({
  method,
  url,
  operationId,
  summary,
  tag: 'Snapshots',
  auth: 'api_key',
  response: Type.Object({}),
  handler: () => {
    throw new Error('served by http/snapshots.ts');
  },
});

/** A SnapshotError as the contract's error. */
function asServiceError(err: unknown): unknown {
  if (!(err instanceof SnapshotError)) return err;
  switch (err.code) {
    case 'snapshot_missing':
      return new ServiceError({
        status: 404,
        type: 'invalid_request_error',
        code: 'resource_missing',
        param: 'name',
        message: err.message,
      });
    case 'invalid_name':
      return errors.invalidRequest('invalid_snapshot_name', err.message, 'name');
    default:
      return errors.invalidRequest(err.code, err.message);
  }
}

export function serveSnapshots(app: FastifyInstance, admin: SnapshotAdmin, gate: Gate, known: KnownPaths): void {
  const route = (
    method: RouteSpec['method'],
    path: string,
    operationId: string,
    summary: string,
    run: (request: FastifyRequest) => Promise<object> | object,
    status = 200,
  ) => {
    const url = API_PREFIX + SNAPSHOTS_URL + path;
    known.add(method, url);
    app.route({
      method,
      url,
      config: { spec: spec(method, SNAPSHOTS_URL + path, operationId, summary) },
      handler: async (request, reply) => {
        if (request.payorch?.accountId !== admin.defaultAccount()) {
          throw new ServiceError({
            status: 403,
            type: 'invalid_request_error',
            code: 'default_account_only',
            message:
              "Snapshots hold every account's data: only a key of the data directory's default account (`payorch server keys reveal`) may save, restore or delete them.",
          });
        }
        let out: object;
        try {
          out = await run(request);
        } catch (err) {
          throw asServiceError(err);
        }
        return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(out));
      },
    });
  };
  const nameOf = (request: FastifyRequest) => (request.params as { name: string }).name;
  route('GET', '', 'listSnapshots', 'List the data directory’s snapshots', async () => ({
    object: 'list',
    data: await admin.list(),
    has_more: false,
    url: SNAPSHOTS_URL,
  }));
  route(
    'POST',
    '',
    'saveSnapshot',
    'Save a snapshot of the database (replacing one of that name)',
    (request) => {
      const body = request.body as { name?: unknown } | undefined;
      if (body?.name === undefined) throw errors.parameterMissing('name');
      if (typeof body.name !== 'string') throw errors.parameterInvalid('name', 'a snapshot name is a string');
      return admin.save(body.name);
    },
    201,
  );
  route('POST', '/:name/restore', 'restoreSnapshot', 'Put the database back to a snapshot', (request) => {
    gate.leave(request); // this request waits for the others, not for itself
    return admin.restore(nameOf(request));
  });
  route('DELETE', '/:name', 'deleteSnapshot', 'Delete a snapshot', async (request) => ({
    ...(await admin.remove(nameOf(request))),
    deleted: true,
  }));
}
