// How every failure leaves the server: the contract's error body (errors.ts decides shapes and statuses),
// for thrown errors, unknown paths (404) and known paths with another method (405 with Allow).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Logger } from 'pino';
import { errors, ServiceError } from '../errors.js';
import { BODY_LIMIT } from './fastify.js';
import { validationError } from './validation.js';
import { HTTP_METHODS } from '../../contract/prefix.js';

/** Maps anything thrown in the pipeline to the contract's error. */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as {
    code?: string;
    statusCode?: number;
    validation?: unknown;
    validationContext?: string;
    message?: string;
  };
  if (e && Array.isArray(e.validation)) return validationError(e.validation, e.validationContext);
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(BODY_LIMIT);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType('');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.invalidRequest('invalid_content_length', 'The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidJson('the body is empty');
  }
  if (isStorageFault(err)) return errors.storageUnavailable(e?.code === 'STORAGE_UNAVAILABLE');
  if (e?.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return errors.invalidRequest('invalid_request', e.message ?? 'The request could not be read.');
  }
  return errors.internal();
}

/**
 * A failure of the data directory rather than of the request: SQLite's SQLITE_FULL / SQLITE_IOERR_* (a
 * statement or the group commit's COMMIT; SQLite has rolled the transaction back), or the file system's
 * ENOSPC / EDQUOT / EIO — also as the `cause` of the error a request gets when another request's fault
 * undid the batch it was part of; or a database server that cannot be reached (STORAGE_UNAVAILABLE: the
 * PostgreSQL store's StorageUnavailable).
 */
function isStorageFault(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 3;
    e = e.cause as typeof e, depth++
  ) {
    if (
      typeof e.code === 'string' &&
      /^(SQLITE_FULL|SQLITE_IOERR|ENOSPC$|EDQUOT$|EIO$|STORAGE_UNAVAILABLE$)/.test(e.code)
    )
      return true;
  }
  return false;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: ServiceError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  return reply
    .code(err.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(err.body(request.id)));
}

/**
 * The paths the app serves, by method: what tells a 405 from a 404. Its router is built on the first such
 * question (most servers and commands never ask one), so a start does not register every route twice.
 */
export class KnownPaths {
  private readonly paths: [method: string, url: string][] = [];
  private router: ReturnType<typeof FindMyWay> | undefined;

  add(method: string, url: string): void {
    this.paths.push([method, url]);
    this.router = undefined;
  }

  allowed(path: string): string[] {
    if (!this.router) {
      const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
      for (const [method, url] of this.paths) router.on(method as 'GET', url, () => undefined);
      this.router = router;
    }
    const router = this.router;
    return HTTP_METHODS.filter((m) => router.find(m, path));
  }
}

/** Every failure as the contract's error body; unknown paths → 404 route_not_found, other methods → 405. */
export function replyWithErrors(app: FastifyInstance, known: KnownPaths, log: Logger | undefined): void {
  app.setErrorHandler((err, request, reply) => {
    const se = toServiceError(err);
    if (se.status === 415)
      return sendError(request, reply, errors.unsupportedMediaType(request.headers['content-type'] ?? ''));
    // The engine's message names the database and why (never a password: adapters/postgres/db.ts), for the operator.
    if (se.status === 503)
      log?.warn(
        { code: (err as { code?: string }).code, reason: (err as Error).message, req: request.id },
        'storage unavailable',
      );
    else if (se.status >= 500) log?.error({ err, req: request.id }, 'unhandled error');
    return sendError(request, reply, se);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allow = known.allowed(path);
    return sendError(
      request,
      reply,
      allow.length ? errors.methodNotAllowed(request.method, path, allow) : errors.routeNotFound(request.method, path),
    );
  });
}
