import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listCatalogue } from '../../domain/rules/catalogue.ts';
import { AppError } from '../../errors.ts';
import type { ClientContext } from '../../services/evaluation.service.ts';
import { principalOf } from '../plugins/auth.ts';
import { NestedError } from '../schemas/common.schema.ts';

/** GET /api/mica/rules: the catalogue as the caller's client has it configured. */
export const rulesRoutes =
  (deps: {
    clientContext: (clientId: string) => Promise<ClientContext | undefined>;
  }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/api/mica/rules',
      {
        config: { auth: 'client', errorFormat: 'nested' },
        schema: {
          tags: ['evaluation'],
          summary: 'The rule catalogue as configured for this client',
          security: [{ bearer: [] }],
          response: {
            // A list, as every list of CONTRACT §9; the catalogue is one page.
            200: Type.Object({
              client_id: Type.String(),
              items: Type.Array(Type.Unknown()),
              next_cursor: Type.Null(),
            }),
            401: NestedError,
            404: NestedError,
          },
        },
      },
      async (req) => {
        const principal = principalOf(req);
        const ctx = await deps.clientContext(principal.clientId);
        if (!ctx) throw new AppError('CLIENT_NOT_FOUND', `Client ${principal.clientId} not found`);
        return { client_id: principal.clientId, items: listCatalogue(ctx.settings), next_cursor: null };
      },
    );
  };
