import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { validationError } from '../../errors.ts';
import type { CacheStatsService, InvalidateRequest } from '../../services/cache-stats.service.ts';
import { principalOf } from '../plugins/auth.ts';
import { Enum, FlatError } from '../schemas/common.schema.ts';
import { CHAIN_NAMES } from '../schemas/evaluate.schema.ts';

const Figures = Type.Object({
  hit_rate: Type.Number({ minimum: 0, maximum: 1 }),
  miss_rate: Type.Number({ minimum: 0, maximum: 1 }),
  total_requests: Type.Integer(),
  cache_size: Type.Integer({ description: 'entries' }),
  memory_usage_mb: Type.Number({ description: 'estimated size of the entries' }),
});

const InvalidateBody = Type.Object(
  {
    cache: Enum(['wallet_screening', 'travel_rule', 'all']),
    wallet_address: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    blockchain: Type.Optional(Enum(CHAIN_NAMES)),
    transfer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  { additionalProperties: false },
);

const flatErrors = {
  400: FlatError,
  401: FlatError,
  403: FlatError,
  413: FlatError,
  429: FlatError,
  500: FlatError,
  503: FlatError,
};

/** A selection that names entries of a cache it does not touch is a mistake, not a no-op. */
function selectionErrors(b: InvalidateRequest): string[] {
  const errors: string[] = [];
  // Travel-rule entries are kept by transfer id: an address or a chain cannot select them.
  if (b.cache === 'travel_rule' && b.wallet_address !== undefined)
    errors.push('wallet_address: Only applies to cache wallet_screening or all');
  if (b.cache === 'travel_rule' && b.blockchain !== undefined)
    errors.push('blockchain: Only applies to cache wallet_screening or all');
  if (b.cache === 'wallet_screening' && b.transfer_id !== undefined)
    errors.push('transfer_id: Only applies to cache travel_rule or all');
  return errors;
}

/** GET /api/mica/cache/stats and POST /api/mica/cache/invalidate (flat errors, CONTRACT §3, §4). */
export const cacheRoutes =
  (deps: { cacheStats: Pick<CacheStatsService, 'stats' | 'invalidate'> }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/api/mica/cache/stats',
      {
        config: { auth: 'client', errorFormat: 'flat' },
        schema: {
          tags: ['operations'],
          summary: "Hit and miss rates and sizes of the caller's client's result caches",
          security: [{ bearer: [] }],
          response: {
            200: Type.Object({ wallet_screening: Figures, travel_rule: Figures }),
            // Any key of the client may read them: no 403, and no body to refuse.
            401: FlatError,
            429: FlatError,
            500: FlatError,
            503: FlatError,
          },
        },
      },
      async (req) => deps.cacheStats.stats(principalOf(req).clientId),
    );

    app.post(
      '/api/mica/cache/invalidate',
      {
        config: { auth: 'admin', errorFormat: 'flat' },
        schema: {
          tags: ['operations'],
          summary: "Drop cached results of the caller's client (admin keys only)",
          description:
            'cache "all" clears both caches, or only the entries matching the address (and chain), the chain, or the transfer given.',
          security: [{ bearer: [] }],
          body: InvalidateBody,
          response: { 200: Type.Object({ invalidated: Type.Integer() }), ...flatErrors },
        },
      },
      async (req) => {
        const body = req.body as InvalidateRequest;
        const errors = selectionErrors(body);
        if (errors.length > 0) throw validationError(errors);
        return { invalidated: await deps.cacheStats.invalidate(principalOf(req).clientId, body) };
      },
    );
  };
