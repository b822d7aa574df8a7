/**
 * The one error registry: every error the service answers with is an AppError carrying a code;
 * the code decides the HTTP status, and the route's wire format (nested, flat, webhook) decides
 * how it is rendered (see http/plugins/error-handler.ts).
 */
export const ERROR_CODES = {
  INVALID_REQUEST: { status: 400, flat: 'VALIDATION', webhook: 'BAD_REQUEST' },
  UNAUTHORIZED: { status: 401, flat: 'AUTHENTICATION', webhook: 'UNAUTHORIZED' },
  FORBIDDEN: { status: 403, flat: 'FORBIDDEN', webhook: 'UNAUTHORIZED' },
  CLIENT_NOT_FOUND: { status: 404, flat: 'NOT_FOUND', webhook: 'BAD_REQUEST' },
  NOT_FOUND: { status: 404, flat: 'NOT_FOUND', webhook: 'BAD_REQUEST' },
  METHOD_NOT_ALLOWED: { status: 405, flat: 'METHOD_NOT_ALLOWED', webhook: 'BAD_REQUEST' },
  INVALID_TRANSITION: { status: 409, flat: 'CONFLICT', webhook: 'DUPLICATE_ALERT' },
  DUPLICATE_ALERT: { status: 409, flat: 'CONFLICT', webhook: 'DUPLICATE_ALERT' },
  PAYLOAD_TOO_LARGE: { status: 413, flat: 'VALIDATION', webhook: 'BAD_REQUEST' },
  RATE_LIMITED: { status: 429, flat: 'RATE_LIMIT', webhook: 'RATE_LIMITED' },
  INTERNAL_ERROR: { status: 500, flat: 'INTERNAL', webhook: 'INTERNAL_ERROR' },
  SERVICE_UNAVAILABLE: { status: 503, flat: 'VENDOR', webhook: 'INTERNAL_ERROR' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetails {
  field?: string;
  reason?: string;
  errors?: string[];
  [key: string]: unknown;
}

/** An error meant for the caller: its message and details are safe to show. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_CODES[code].status;
  }
}

/** The 400 of one bad field: named, with its reason, and listed as every problem is (CONTRACT §3). */
export function fieldError(field: string, reason: string, extra?: ErrorDetails): AppError {
  return new AppError('INVALID_REQUEST', `Invalid request: ${field}: ${reason}`, {
    field,
    reason,
    errors: [`${field}: ${reason}`],
    ...extra,
  });
}

/**
 * The 400 that lists every problem at once (CONTRACT §3): `details.field` and `details.reason`
 * come from the first, each problem being written `<field>: <reason>`.
 */
export function validationError(errors: string[], extra?: ErrorDetails): AppError {
  const first = errors[0] ?? 'body: Invalid value';
  const at = first.indexOf(': ');
  const field = at > 0 ? first.slice(0, at) : 'body';
  const reason = at > 0 ? first.slice(at + 2) : first;
  return new AppError('INVALID_REQUEST', `Invalid request: ${first}`, { field, reason, ...extra, errors });
}

/**
 * A refusal with the problems its schema could not see added to its list (a check that needs
 * several fields, or the store), so that the caller learns of every problem at once. `order`
 * may rearrange the whole list; when its first problem changes, field and reason follow it.
 */
export function withProblems(
  err: AppError,
  more: string[],
  order: (all: string[]) => string[] = (all) => all,
): AppError {
  if (more.length === 0 || !err.details) return err;
  const all = [...((err.details.errors as string[] | undefined) ?? []), ...more];
  const errors = order(all);
  if (errors[0] === all[0])
    return new AppError(err.code, err.message, { ...err.details, errors }, err.headers);
  return validationError(errors);
}
