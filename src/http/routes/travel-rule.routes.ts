import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TravelRuleService } from '../../services/travel-rule.service.ts';
import { principalOf } from '../plugins/auth.ts';
import { FlatError } from '../schemas/common.schema.ts';
import { TravelRuleRequestSchema, TravelRuleResponseSchema } from '../schemas/travel-rule.schema.ts';
import { actorOf } from './evaluate.routes.ts';
import { sendEvaluatedAnswer } from './evaluated-answer.reply.ts';

/** POST /api/mica/travel-rule-validation (flat errors, CONTRACT §3). */
export const travelRuleRoutes =
  (deps: { travelRule: Pick<TravelRuleService, 'validate'> }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/api/mica/travel-rule-validation',
      {
        config: { auth: 'client', errorFormat: 'flat' },
        // The body schema documents the API only: the travel-rule domain validates the body, so
        // that both request forms report the same `<field>: <reason>` errors.
        validatorCompiler: () => () => true,
        schema: {
          tags: ['travel rule'],
          summary: 'Validate travel-rule data of a transfer (EU 2023/1113); spec or IVMS101 form',
          security: [{ bearer: [] }],
          body: TravelRuleRequestSchema,
          response: {
            200: TravelRuleResponseSchema,
            400: FlatError,
            401: FlatError,
            404: FlatError,
            413: FlatError,
            429: FlatError,
            500: FlatError,
            503: FlatError,
          },
        },
      },
      async (req, reply) => {
        const answer = await deps.travelRule.validate(principalOf(req), req.body, actorOf(req));
        return sendEvaluatedAnswer(reply, answer);
      },
    );
  };
