import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listCatalogue } from '../../domain/rules/catalogue.ts';
import { AppError } from '../../errors.ts';
import type { ClientContext } from '../../services/evaluation.service.ts';
import { principalOf } from '../plugins/auth.ts';
import { nestedErrorResponses } from '../schemas/common.schema.ts';

/** One rule as GET /api/mica/rules lists it (CONTRACT §2, with this client's settings). */
const CatalogueEntrySchema = Type.Object({
  id: Type.String({ description: 'e.g. MICA-CDD-001' }),
  name: Type.String(),
  article: Type.Integer({ description: 'MiCA / AMLR article' }),
  contexts: Type.Array(Type.String({ description: 'transaction, wallet_screen, travel_rule or periodic' })),
  result: Type.String({ description: 'the result when triggered: fail, alert or block' }),
  severity: Type.String({ description: 'low, medium, high or critical' }),
  actions: Type.Array(Type.String()),
  conditions: Type.Array(Type.String({ description: 'the keys of conditions_evaluated / conditions_met' })),
  enabled: Type.Boolean({ description: "false when the client's settings disable the rule" }),
  thresholds: Type.Record(Type.String(), Type.Number(), {
    description: "this client's values of the thresholds the rule reads",
  }),
  high_risk_countries: Type.Optional(
    Type.Object(
      { source: Type.String(), date: Type.String(), codes: Type.Array(Type.String()) },
      { description: 'only on MICA-CDD-006: the list it checks against' },
    ),
  ),
});

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
              items: Type.Array(CatalogueEntrySchema),
              next_cursor: Type.Null(),
            }),
            ...nestedErrorResponses,
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
