// The fastify instance and what it does before any route runs: the options, the JSON body parser, lazy
// validator compilation, and the contract's error body for requests fastify or Node reject before routing.
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { FastifyValidationResult } from 'fastify/types/schema.js';
import type { Logger } from 'pino';
import { errors, ServiceError } from '../errors.js';
import { newRequestId } from '../ids.js';
import { compileValidator } from './validation.js';
import { jsonBodyParser } from './json.js';

export const BODY_LIMIT = 1024 * 1024;

/** How long a connection may take to send a request (docs/api.md "Conventions", timeouts). */
export interface Timeouts {
  /** From the first byte of a request to the end of its headers. */
  headersMs: number;
  /** From the first byte of a request to the end of its body (headers included). */
  requestMs: number;
}

/**
 * Generous for loopback: the CLI and SDKs send a whole request (at most 1 MiB) at once, so only a stalled or
 * hostile client ever gets near them; they bound how long it holds one of its address's in-flight slots.
 */
export const DEFAULT_TIMEOUTS: Timeouts = { headersMs: 20_000, requestMs: 60_000 };

/**
 * Writes a last answer and closes the connection for good. Ending the socket alone is not enough: the server
 * allows half-open connections, so an ended socket whose client neither reads nor closes its own side stays open,
 * and with it the request it carried, holding its in-flight slot (released when the request is aborted,
 * lifecycle.ts). So the socket is destroyed as soon as the answer and the FIN are handed to the kernel
 * (a few hundred bytes: the kernel takes them at once); if it cannot take them at once (the client left earlier
 * answers on this connection unread), the socket is destroyed right away and this answer is lost.
 */
function answerAndClose(socket: Duplex, text: string): void {
  socket.end(text, () => socket.destroy());
  if (socket.writableLength > 0) socket.destroy();
}

export function createFastify(log: Logger | undefined, timeouts: Timeouts = DEFAULT_TIMEOUTS): FastifyInstance {
  const headersMs = Math.min(timeouts.headersMs, timeouts.requestMs);
  const app = Fastify({
    // Node checks open requests against both limits every `connectionsCheckingInterval`; an expired one is
    // answered 408 by clientErrorHandler below, which destroys the connection: its request is aborted and its
    // in-flight slot released then (lifecycle.ts), whatever the client does.
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: headersMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersMs / 4))),
    },
    logger: false, // one line per request is written by the lifecycle (http/lifecycle.ts, log.ts AccessLog)
    genReqId: (req) => newRequestId(req),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    // Ids are validated by the routes' schemas (up to 255 characters); find-my-way's default of 100 would answer
    // longer ones outside the pipeline.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 2048 },
    // A URL that cannot be decoded (`%zz`), or a path parameter over the router's limit: the contract's error body.
    frameworkErrors: (err, request, generic) => {
      const reply = generic as unknown as FastifyReply;
      reply.header('Request-Id', request.id);
      const se = errors.invalidRequest(
        'invalid_url',
        `The request URL could not be read (${err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path segment is too long' : 'invalid percent-encoding'}).`,
      );
      reply
        .code(se.status)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(se.body(request.id)));
    },
    // Bytes Node's HTTP parser rejects (broken framing, bad header bytes, an oversized head; or a body's chunk
    // framing, after the request was admitted) and the timeouts: still the contract's error body with a Request-Id,
    // then the connection is destroyed (answerAndClose).
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
      const requestId = newRequestId();
      const se =
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new ServiceError({
              status: 408,
              type: 'invalid_request_error',
              code: 'request_timeout',
              message: 'The request (its headers or its body) did not arrive in time.',
            })
          : err.code === 'HPE_HEADER_OVERFLOW'
            ? errors.invalidRequest('request_header_too_large', 'The request line and headers exceed 16 KiB.')
            : errors.invalidRequest(
                'malformed_request',
                'The request is not valid HTTP/1.1 (request line, headers or body framing).',
              );
      const body = JSON.stringify(se.body(requestId));
      answerAndClose(
        socket,
        `HTTP/1.1 ${se.status} ${se.status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
      log?.warn({ req: requestId, code: err.code, status: se.status }, 'malformed request');
    },
  });

  // A client that half-closes its side once its request is sent (shutdown(SHUT_WR): `nc -N`, HTTP/1.0-style clients,
  // some proxies) still waits for the answer: a half-close neither delimits a request nor says the client lost
  // interest (RFC 9112 §9.6). By default Node aborts the request at the client's FIN: its write commits, but no answer
  // leaves and the request log has no entry. With this the answer is sent, then the connection ends (a FIN inside a
  // request's head or body is a 400 malformed_request, below).
  (app.server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;

  // Each route's validator is compiled on its first request, not at start: compiling them all is slow, and the
  // embedded default (a CLI command that serves one request) would pay it every time.
  app.setValidatorCompiler(({ schema, httpPart }) => {
    let compiled: ReturnType<typeof compileValidator> | undefined;
    const validate: FastifyValidationResult = Object.assign(
      (...args: unknown[]) => {
        compiled ??= compileValidator(schema, httpPart);
        const ok = (compiled as (...a: unknown[]) => boolean)(...args);
        validate.errors = compiled.errors as FastifyValidationResult['errors'];
        return ok;
      },
      { errors: null },
    );
    return validate;
  });

  // JSON only: anything else with a body → 415; an empty body counts as no body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser); // numbers read exactly or a 400: json.ts
  return app;
}

/**
 * Connections that never sent a byte (a browser's preconnect, a load balancer's TCP probe, a client's spare socket)
 * carry no request, but Node's HTTP server waits for them when it closes — `closeIdleConnections` leaves a
 * connection alone until it has begun a request — so a stop could wait until the client dropped them (a minute or
 * more). At the stop, they are closed; connections with a request in flight (or half sent, bounded by the header
 * and request timeouts) are still waited for.
 */
export function closeSilentConnectionsOnStop(app: FastifyInstance): () => void {
  const open = new Set<Socket>();
  let stopping = false;
  app.server.on('connection', (socket: Socket) => {
    // Arrived while the stop begins (the server has not stopped accepting yet): closed after a second without
    // traffic; a request it sends meanwhile is answered 503, as the server is closing.
    if (stopping) socket.setTimeout(1000, () => socket.destroy());
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return () => {
    stopping = true;
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  };
}
