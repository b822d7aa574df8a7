import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isChain } from '../../domain/screening/address/chains.ts';
import { validateAddress } from '../../domain/screening/address/validate.ts';
import { type AppError, validationError, withProblems } from '../../errors.ts';
import type { ScreeningRequest, ScreeningService } from '../../services/screening.service.ts';
import type { Vendors } from '../../vendors/index.ts';
import { principalOf } from '../plugins/auth.ts';
import { toAppError } from '../plugins/error-handler.ts';
import { FlatError } from '../schemas/common.schema.ts';
import {
  BreakerStatusSchema,
  ScreeningBodySchema,
  ScreeningQuerySchema,
  ScreeningResponseSchema,
} from '../schemas/screening.schema.ts';
import { actorOf } from './evaluate.routes.ts';
import { sendEvaluatedAnswer } from './evaluated-answer.reply.ts';

/**
 * A refused request's problems, with the address's own when the schema let it through: the
 * per-chain check runs in the service, after the schema, so without this a bad address was only
 * reported once the other fields were fixed (CONTRACT §3: every problem at once).
 */
function allProblems(schemaError: Error, input: unknown): AppError {
  const err = toAppError(schemaError);
  const errors = (err.details?.errors as string[] | undefined) ?? [];
  const address = errors.some((e) => e.startsWith('wallet_address:')) ? undefined : addressProblem(input);
  return withProblems(err, address === undefined ? [] : [address]);
}

/** The address's problem for its chain, when both are there to check. */
function addressProblem(input: unknown): string | undefined {
  const { wallet_address, blockchain } = (input ?? {}) as Record<string, unknown>;
  if (typeof wallet_address !== 'string' || !isChain(blockchain)) return undefined;
  const valid = validateAddress(blockchain, wallet_address);
  return valid.ok ? undefined : `wallet_address: ${valid.reason}`;
}

/** The POST form's own fields (the spec's GET takes the address and its chain only). */
const POST_ONLY = Object.keys(ScreeningBodySchema.properties).filter(
  (k) => !(k in ScreeningQuerySchema.properties),
);

/**
 * A GET naming a POST-only field is refused rather than screened without it: a caller sending
 * `originator_name` in the query would otherwise read the answer as that name screened and cleared.
 */
function postOnlyProblems(query: unknown): string[] {
  const q = (query ?? {}) as Record<string, unknown>;
  return POST_ONLY.filter((k) => q[k] !== undefined).map((k) => `${k}: Only in the POST form's body`);
}

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
      // The handler adds the address's own problem to the schema's (allProblems).
      attachValidation: true,
      schema: {
        tags: ['wallet screening'],
        security: [{ bearer: [] }],
        response: { 200: ScreeningResponseSchema, ...flatErrors },
      },
    } as const;

    app.get(
      '/api/mica/wallet-screening',
      {
        // A GET here screens: it may call the vendors (each call billed) and it writes an audited
        // evaluation. A HEAD (a monitor's or a link checker's) must do neither, so it is not served.
        exposeHeadRoute: false,
        ...common,
        schema: { ...common.schema, summary: 'Screen a wallet address', querystring: ScreeningQuerySchema },
      },
      async (req, reply) => {
        const postOnly = postOnlyProblems(req.query);
        if (req.validationError) throw withProblems(allProblems(req.validationError, req.query), postOnly);
        if (postOnly.length > 0) {
          const address = addressProblem(req.query);
          throw validationError(address === undefined ? postOnly : [address, ...postOnly]);
        }
        // The GET form takes the address and its chain only; the other fields are POST only (spec).
        const { wallet_address, blockchain } = req.query as ScreeningRequest;
        const answer = await deps.screening.screen(
          principalOf(req),
          { wallet_address, blockchain },
          actorOf(req),
        );
        return sendEvaluatedAnswer(reply, answer);
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
        if (req.validationError) throw allProblems(req.validationError, req.body);
        const answer = await deps.screening.screen(
          principalOf(req),
          req.body as ScreeningRequest,
          actorOf(req),
        );
        return sendEvaluatedAnswer(reply, answer);
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
