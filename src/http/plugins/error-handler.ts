import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CODES } from '../../errors.ts';
import { isCacheUnavailable, isStoreUnavailable, neverReachedStore } from '../../storage/store-errors.ts';
import { describeAjvErrors } from '../validation.ts';

export type ErrorFormat = 'nested' | 'flat' | 'webhook';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route renders errors (CONTRACT §3); nested when not set. */
    errorFormat?: ErrorFormat;
  }
}

/** Seconds after which a request refused for a lost store may be retried (the pool reconnects by itself). */
const STORE_RETRY_AFTER_S = 5;

/** A byte count as the README and the configuration state it: `1 MiB`, `64 KiB`, `5000 bytes`. */
function sizeText(bytes: number): string {
  if (bytes % 1_048_576 === 0) return `${bytes / 1_048_576} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The 413, naming the route's limit (BODY_LIMIT_BYTES; the operator API's is larger). */
const tooLarge = (limit = 1_048_576) =>
  new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds the ${sizeText(limit)} limit`, {
    field: 'body',
    reason: `Exceeds the ${sizeText(limit)} limit`,
  });

/**
 * Maps anything thrown to an AppError; internals (stack, SQL) never reach the caller. `bodyLimit`:
 * the route's, named by a 413.
 */
export function toAppError(err: unknown, bodyLimit?: number): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError & { validation?: unknown[]; validationContext?: string };
  if (Array.isArray(fe.validation)) {
    const problems = describeAjvErrors(fe.validation as never);
    const errors = problems.map((p) => `${p.field}: ${p.reason}`);
    const first = problems[0] ?? { field: 'body', reason: 'Invalid value' };
    // The nested format's reason lists a missing enum field's allowed values (the spec's
    // trigger_type example); `errors` keeps the flat format's `<field>: Required` shape.
    const reason = first.allowed ? `Required; must be one of: ${first.allowed.join(', ')}` : first.reason;
    return new AppError('INVALID_REQUEST', `Invalid request: ${errors[0] ?? 'body: Invalid value'}`, {
      field: first.field,
      reason,
      errors,
    });
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(bodyLimit);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new AppError('INVALID_REQUEST', 'Request body must be JSON', {
        field: 'body',
        reason: 'Must be JSON (Content-Type: application/json)',
      });
  }
  // The client closed the connection while sending its body: no one to answer, and no outage of
  // the store (the socket error would otherwise read as one).
  if (fe.code === 'ECONNRESET' && fe.message === 'aborted')
    return new AppError('INVALID_REQUEST', 'Request body was not received in full', {
      field: 'body',
      reason: 'Incomplete',
    });
  if (isStoreUnavailable(err))
    return new AppError(
      'SERVICE_UNAVAILABLE',
      // Only the cache's own endpoints reach Redis without a fallback; the database is not at fault.
      isCacheUnavailable(err)
        ? 'The shared cache (Redis) is unavailable; retry later'
        : neverReachedStore(err)
          ? 'Storage is unavailable; nothing was recorded, retry later'
          : 'Storage connection was lost; whether this request was recorded is unknown, retry later',
      // The details of a vendor's 503 (the spec's VENDOR type, the flat format's only 503 type),
      // so a client reading them finds what is away and when to retry where it looks for them.
      {
        vendor: isCacheUnavailable(err) ? 'redis' : 'database',
        breaker_state: 'OPEN',
        retry_after: STORE_RETRY_AFTER_S,
      },
      { 'retry-after': String(STORE_RETRY_AFTER_S) },
    );
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status === 413) return tooLarge(bodyLimit);
  if (status >= 400 && status < 500) return new AppError('INVALID_REQUEST', 'Invalid request');
  return new AppError('INTERNAL_ERROR', 'Internal error');
}

/** At most this many problems are listed in an answer; the rest are counted in a last entry. */
export const MAX_LISTED_PROBLEMS = 100;

/** A problem list as answered: a small request must not get a huge answer (one entry per element). */
function listed<T>(errors: T): T | string[] {
  if (!Array.isArray(errors) || errors.length <= MAX_LISTED_PROBLEMS) return errors;
  const more = errors.length - MAX_LISTED_PROBLEMS;
  return [
    ...errors.slice(0, MAX_LISTED_PROBLEMS),
    `body: ${more} more problem${more === 1 ? '' : 's'} not listed`,
  ];
}

/** Renders an AppError in one of the three wire formats. */
export function renderError(err: AppError, format: ErrorFormat): Record<string, unknown> {
  if (format === 'flat') {
    const { field: _f, reason, errors: all, ...rest } = err.details ?? {};
    const errors = listed(all);
    const details: Record<string, unknown> = { ...rest };
    if (ERROR_CODES[err.code].flat === 'VALIDATION')
      details.errors = errors ?? (reason ? [`${_f ?? 'body'}: ${reason}`] : []);
    // The flat RATE_LIMIT details are exactly limit, remaining, reset_at (the spec's table).
    if (err.code === 'RATE_LIMITED') delete details.retry_after;
    return { error: err.message, type: ERROR_CODES[err.code].flat, details, statusCode: err.status };
  }
  const code = format === 'webhook' ? ERROR_CODES[err.code].webhook : err.code;
  let details = err.details;
  // Every problem is listed (CONTRACT §3), also when a check found only one (a body that is not JSON).
  if (details && details.errors === undefined && typeof details.reason === 'string')
    details = { ...details, errors: [`${details.field ?? 'body'}: ${details.reason}`] };
  else if (details && Array.isArray(details.errors) && details.errors.length > MAX_LISTED_PROBLEMS)
    details = { ...details, errors: listed(details.errors) };
  return { error: { code, message: err.message, ...(details ? { details } : {}) } };
}

/** Paths whose endpoints answer flat errors (CONTRACT §3). */
const FLAT_PATHS =
  /^\/api\/mica\/(?:wallet-screening|travel-rule-validation|circuit-breaker|cache)(?:[/?]|$)/;

/** The error format of the endpoints under a path (CONTRACT §3). */
function formatOfPath(path: string | undefined): ErrorFormat {
  if (path === undefined) return 'nested';
  if (FLAT_PATHS.test(path)) return 'flat';
  return path.startsWith('/api/webhooks/') ? 'webhook' : 'nested';
}

/**
 * The path of the refused request, when its request line is in the chunk the HTTP parser failed on
 * (Node's `rawPacket`, with `bytesParsed` where it stopped): the last request line before that
 * point, so a request pipelined behind another is not taken for it. The answer is then in the
 * format of the endpoint asked for. Not there (a header block split over several reads, a
 * timeout): unknown, and the nested format.
 */
function requestPathOf(packet: unknown, bytesParsed: unknown): string | undefined {
  if (!Buffer.isBuffer(packet)) return undefined;
  const end = typeof bytesParsed === 'number' && bytesParsed > 0 ? bytesParsed : packet.length;
  const text = packet.subarray(Math.max(0, end - 65_536), end).toString('latin1');
  let path: string | undefined;
  // A request line cut where the parser stopped (a URL longer than the header limit) counts too:
  // its path is read up to the cut, and only the path decides the format.
  for (const m of text.matchAll(/(?:^|\r\n)[A-Z]+ (\/\S*)(?: HTTP\/1\.[01]\r\n|$)/g)) path = m[1];
  return path;
}

/**
 * The error format of a request: its route's; for a path or method no route serves (a 404), the
 * format of the endpoints under that path, so a caller of a flat endpoint always reads flat errors.
 */
function formatOf(req: FastifyRequest): ErrorFormat {
  let own: ErrorFormat | undefined;
  try {
    own = req.routeOptions.config?.errorFormat;
  } catch {
    // A request refused before routing (a malformed URL) has no route options.
  }
  if (own) return own;
  return FLAT_PATHS.test(req.url) ? 'flat' : 'nested';
}

/** Sends an error response in the route's format. */
export function sendError(req: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  const format = formatOf(req);
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.status).type('application/json; charset=utf-8').send(renderError(err, format));
}

/**
 * Errors Fastify raises before a route is found (its `frameworkErrors` option), in our formats: a
 * URL that does not decode is a 400; a path segment longer than any id is an id that names
 * nothing, 404 like any unknown id (Fastify's own answers were 400/414 bodies of its own format).
 */
export function frameworkErrorHandler(
  error: FastifyError,
  req: FastifyRequest,
  reply: FastifyReply,
  /** The not-found answer (not-found.ts), which counts a valid key's request and sets its headers. */
  unmatched?: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
) {
  // Refused before routing, the answer passes no hook: the request id (every answer's, to quote in
  // a support request) is set here.
  reply.header('x-request-id', req.id);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH' && unmatched) {
    unmatched(req, reply).catch((e) => sendError(req, reply, toAppError(e, undefined)));
    return;
  }
  const err =
    error.code === 'FST_ERR_BAD_URL'
      ? new AppError('INVALID_REQUEST', 'Invalid request: url: Not a valid URL', {
          field: 'url',
          reason: 'Not a valid URL',
        })
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new AppError('NOT_FOUND', 'Not found')
        : toAppError(error, req.routeOptions.bodyLimit);
  return sendError(req, reply, err);
}

/** What Node's HTTP parser hands over of the bytes it refused. */
function rawOf(err: Error): [unknown, unknown] {
  const { rawPacket, bytesParsed } = err as { rawPacket?: unknown; bytesParsed?: unknown };
  return [rawPacket, bytesParsed];
}

/**
 * Requests Node's HTTP parser refuses (a malformed request line or header, conflicting lengths,
 * headers over the size limit), answered before the connection closes in the format of the
 * endpoint asked for when its request line can be read (requestPathOf), else nested; Fastify's
 * default wrote a body of its own format.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request timed out']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request headers are too large']
        : [400, 'Malformed HTTP request'];
  const format = formatOfPath(requestPathOf(...rawOf(err)));
  // Flat errors list every problem (CONTRACT §3): here the one of the request itself.
  const details = format === 'flat' ? { errors: [`request: ${message}`] } : undefined;
  const rendered = renderError(new AppError('INVALID_REQUEST', message, details), format);
  // The flat body states the status it was sent with (a 408 or 431 is not INVALID_REQUEST's 400).
  const body = JSON.stringify('statusCode' in rendered ? { ...rendered, statusCode: status } : rendered);
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  socket.destroy(err);
}

/** How much of a refused body is still read (and dropped) so that its 413 reaches the client. */
export const REFUSED_BODY_DRAIN_BYTES = 64 * 1_048_576;
/** How long the rest of a refused body may take to arrive before the connection is cut. */
const REFUSED_BODY_DRAIN_MS = 10_000;

/**
 * Fastify closes the connection after a body it refuses, with the rest of the upload unread: the
 * kernel then resets it, and a client that sends its whole body before reading the answer (curl,
 * most HTTP libraries) gets a broken pipe instead of the 413. So the rest is read and dropped, and
 * the connection stays open, up to REFUSED_BODY_DRAIN_BYTES more; past that it is cut.
 */
function drainRefusedBody(req: FastifyRequest, reply: FastifyReply): void {
  const raw = req.raw;
  if (raw.complete || raw.destroyed) return;
  const declared = Number(req.headers['content-length']);
  if (declared > REFUSED_BODY_DRAIN_BYTES) return;
  // A client that asked for the connection to close (or speaks HTTP/1.0 without keep-alive) has it
  // closed, as it asked (RFC 9112 §9.6).
  const asked = String(req.headers.connection ?? '').toLowerCase();
  if (/\bclose\b/.test(asked) || (raw.httpVersion === '1.0' && !/\bkeep-alive\b/.test(asked))) return;
  const socket = raw.socket;
  let read = 0;
  // The rest must come at an upload's pace: a trickle would otherwise hold the connection until
  // the request timeout, which then answered a second time (a 408 after the 413).
  const deadline = setTimeout(() => socket.destroy(), REFUSED_BODY_DRAIN_MS);
  deadline.unref();
  raw.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > REFUSED_BODY_DRAIN_BYTES) socket.destroy();
  });
  raw.once('end', () => clearTimeout(deadline));
  raw.once('close', () => clearTimeout(deadline));
  raw.resume();
  reply.header('connection', 'keep-alive');
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, req, reply) => {
    const appErr = toAppError(error, req.routeOptions.bodyLimit);
    if ((error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') drainRefusedBody(req, reply);
    // A 503 (store lost, draining, vendor unavailable) is a condition, not a bug: one line, no stack.
    if (appErr.status === 503)
      req.log.warn({ code: appErr.code, cause: (error as Error).message }, 'request refused: unavailable');
    else if (appErr.status >= 500) req.log.error({ err: error }, 'request failed');
    else req.log.info({ code: appErr.code, status: appErr.status }, 'request rejected');
    return sendError(req, reply, appErr);
  });
}
