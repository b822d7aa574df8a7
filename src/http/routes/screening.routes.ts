import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ScreeningRequest, ScreeningService } from '../../services/screening.service.ts';
import type { Vendors } from '../../vendors/index.ts';
import { principalOf } from '../plugins/auth.ts';
import { FlatError } from '../schemas/common.schema.ts';
import {
  BreakerStatusSchema,
  ScreeningBodySchema,
  ScreeningQuerySchema,
  ScreeningResponseSchema,
} from '../schemas/screening.schema.ts';
import { actorOf } from './evaluate.routes.ts';

const flatErrors = {
  400: FlatError,
  401: FlatError,
  404: FlatError,
  413: FlatError,
  429: FlatError,
  500: FlatError,
  503: FlatError,
};

/** Wallet screening (GET and POST) and the vendors' circuit-breaker status; flat errors (CONTRACT §3). */
export const screeningRoutes =
  (deps: {
    screening: Pick<ScreeningService, 'screen'>;
    breakers: Pick<Vendors['breakers'], 'status'>;
  }): FastifyPluginAsyncTypebox =>
  async (app) => {
    const common = {
      config: { auth: 'client', errorFormat: 'flat' },
      schema: {
        tags: ['wallet screening'],
        security: [{ bearer: [] }],
        response: { 200: ScreeningResponseSchema, ...flatErrors },
      },
    } as const;

    app.get(
      '/api/mica/wallet-screening',
      {
        ...common,
        schema: { ...common.schema, summary: 'Screen a wallet address', querystring: ScreeningQuerySchema },
      },
      async (req, reply) => {
        // The GET form takes the address and its chain only; the other fields are POST only (spec).
        const { wallet_address, blockchain } = req.query as ScreeningRequest;
        const json = await deps.screening.screen(
          principalOf(req),
          { wallet_address, blockchain },
          actorOf(req),
        );
        // Sent as the cached JSON text, so a hit and a miss answer the same bytes.
        return reply.type('application/json; charset=utf-8').send(json as never);
      },
    );

    app.post(
      '/api/mica/wallet-screening',
      {
        ...common,
        schema: {
          ...common.schema,
          summary: 'Screen a wallet address, and the parties of a transfer by name',
          body: ScreeningBodySchema,
        },
      },
      async (req, reply) => {
        const json = await deps.screening.screen(
          principalOf(req),
          req.body as ScreeningRequest,
          actorOf(req),
        );
        return reply.type('application/json; charset=utf-8').send(json as never);
      },
    );

    app.get(
      '/api/mica/circuit-breaker/status',
      {
        config: { auth: 'client', errorFormat: 'flat' },
        schema: {
          tags: ['operations'],
          summary: "The vendors' circuit breakers",
          security: [{ bearer: [] }],
          response: {
            200: BreakerStatusSchema,
            401: FlatError,
            429: FlatError,
            500: FlatError,
            503: FlatError,
          },
        },
      },
      async () => ({ breakers: await deps.breakers.status() }),
    );
  };
