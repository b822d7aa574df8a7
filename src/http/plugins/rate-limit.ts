import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../errors.ts';
import type { Principal } from '../../services/keys.service.ts';
import type { LimitDecision, Limits, RateLimitService } from '../../services/rate-limit.service.ts';

/** Writes the X-RateLimit-* headers of a decision. */
export function setRateLimitHeaders(reply: FastifyReply, d: LimitDecision): void {
  reply.header('x-ratelimit-limit', d.limit);
  reply.header('x-ratelimit-remaining', d.remaining);
  reply.header('x-ratelimit-reset', Math.ceil(d.resetAt / 1000));
}

/** The 429 of a refused decision; the route's error format renders it (nested or flat). */
export function rateLimitError(d: LimitDecision): AppError {
  return new AppError(
    'RATE_LIMITED',
    d.scope === 'day' ? 'Daily request limit exceeded' : 'Rate limit exceeded',
    { limit: d.limit, remaining: 0, reset_at: new Date(d.resetAt).toISOString(), retry_after: d.retryAfter },
    { 'retry-after': String(d.retryAfter) },
  );
}

/**
 * Per-client limits on every authenticated API route (after authentication, so the client is
 * known, and before the role check of admin routes, which auth.ts runs in preParsing: a refusal
 * for the role is counted too); the headers go on every response, refused or not.
 * Must stay an onRequest hook registered after registerAuth.
 */
export function registerClientRateLimit(
  app: FastifyInstance,
  deps: {
    limiter: RateLimitService;
    limitsFor: (clientId: string) => Promise<Limits>;
    onRejected?: (scope: string) => void;
  },
): void {
  const limit = clientLimit(deps);
  app.addHook('onRequest', async (req, reply) => {
    if (req.principal) await limit(req.principal, reply);
  });
}

/** Counts one request of the client, sets the headers, and throws the 429 of a refusal. */
export function clientLimit(deps: {
  limiter: RateLimitService;
  limitsFor: (clientId: string) => Promise<Limits>;
  onRejected?: (scope: string) => void;
}) {
  return async (principal: Principal, reply: FastifyReply): Promise<void> => {
    const decision = await deps.limiter.check(
      `client:${principal.clientId}`,
      await deps.limitsFor(principal.clientId),
    );
    setRateLimitHeaders(reply, decision);
    if (!decision.allowed) {
      deps.onRejected?.(decision.scope ?? 'minute');
      throw rateLimitError(decision);
    }
  };
}
