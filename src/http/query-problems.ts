import type { FastifyRequest } from 'fastify';
import { withProblems } from '../errors.ts';
import { rangeProblems } from '../services/audit.service.ts';
import { toAppError } from './plugins/error-handler.ts';

/**
 * Throws the 400 of a query its schema refused, with the problems of its `from` and `to` beside the
 * schema's: the dates are read after the schema, so without this a bad date was reported only once
 * the other parameters were fixed (CONTRACT §3: every problem at once). For routes registered with
 * `attachValidation`.
 */
export function refuseInvalidQuery(req: FastifyRequest): void {
  if (!req.validationError) return;
  const err = toAppError(req.validationError);
  const errors = (err.details?.errors as string[] | undefined) ?? [];
  const q = (req.query ?? {}) as Record<string, unknown>;
  const unreported = (field: 'from' | 'to') =>
    typeof q[field] === 'string' && !errors.some((e) => e.startsWith(`${field}:`)) ? q[field] : undefined;
  throw withProblems(err, rangeProblems({ from: unreported('from'), to: unreported('to') }));
}
