import { isUtf8 } from 'node:buffer';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { type Actor, systemActor } from '../../domain/actor.ts';
import { BIDI_CONTROL } from '../../domain/visible-text.ts';
import { fieldError, withProblems } from '../../errors.ts';
import { type EvaluationService, evaluationRequestProblems } from '../../services/evaluation.service.ts';
import { principalOf } from '../plugins/auth.ts';
import { toAppError } from '../plugins/error-handler.ts';
import { nestedErrorResponses } from '../schemas/common.schema.ts';
import {
  EvaluationRequestDocument,
  EvaluationRequestSchema,
  EvaluationResponseSchema,
} from '../schemas/evaluate.schema.ts';

/** POST /api/mica/evaluate and GET /api/mica/evaluations/{id}. */
export const evaluateRoutes =
  (deps: { evaluation: EvaluationService }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/api/mica/evaluate',
      {
        config: {
          auth: 'client',
          errorFormat: 'nested',
          // The document states each context's entity types in the body schema; the route validates
          // with the request schema, and the service refuses a mismatch with its own message.
          swaggerTransform: ({ schema, url }) => ({
            schema: { ...schema, body: EvaluationRequestDocument } as never,
            url,
          }),
        },
        // The schema's problems and those it cannot see (evaluationRequestProblems) in one 400.
        attachValidation: true,
        schema: {
          tags: ['evaluation'],
          summary: 'Evaluate an event against the MiCA rule catalogue',
          description:
            "Answered once the evaluation is committed to the audit trail. A 400 lists every problem: the schema's (a field of `data` its context does not name is `Unknown field`; a key named twice in one object is `Duplicate key`), an address invalid for its chain, unknown rule ids, and rules disabled in the client's settings (`disabled_rules`): a manual request naming one, or a context whose every rule is disabled.",
          security: [{ bearer: [] }],
          body: EvaluationRequestSchema,
          response: { 200: EvaluationResponseSchema, ...nestedErrorResponses },
        },
      },
      async (req, reply) => {
        if (req.validationError)
          throw withProblems(
            toAppError(req.validationError),
            evaluationRequestProblems(req.body),
            topLevelFirst,
          );
        const { responseJson } = await deps.evaluation.evaluate(
          principalOf(req),
          req.body as never,
          actorOf(req),
          {
            refuseDisabledSelection: true,
          },
        );
        // Sent as the exact text that was stored with the audit record.
        return reply.type('application/json; charset=utf-8').send(responseJson as never);
      },
    );

    app.get(
      '/api/mica/evaluations/:evaluation_id',
      {
        config: { auth: 'client', errorFormat: 'nested' },
        schema: {
          tags: ['evaluation'],
          summary: 'One stored evaluation, as it was returned',
          security: [{ bearer: [] }],
          params: Type.Object({ evaluation_id: Type.String({ maxLength: 64 }) }),
          response: { 200: EvaluationResponseSchema, ...nestedErrorResponses },
        },
      },
      async (req, reply) => {
        const stored = await deps.evaluation.get(principalOf(req), req.params.evaluation_id);
        return reply.type('application/json; charset=utf-8').send(JSON.stringify(stored) as never);
      },
    );
  };

/** The request's own fields before those inside data, as the schema lists them. */
function topLevelFirst(all: string[]): string[] {
  return [...all.filter((p) => !p.startsWith('data.')), ...all.filter((p) => p.startsWith('data.'))];
}

/**
 * Who acts, for the audit rows and histories: the key, and the person named for it. A key issued
 * to an officer always acts as that officer (an X-Actor header cannot speak for someone else);
 * a key without one may name the person behind it with X-Actor.
 */
export function actorOf(req: {
  principal?: { keyId: string; officer: string | null };
  headers: Record<string, unknown>;
}): Actor {
  if (!req.principal) return systemActor('system');
  const header = req.headers['x-actor'];
  const name = req.principal.officer ?? (typeof header === 'string' && header ? headerText(header) : null);
  return { id: req.principal.keyId, name, key: true };
}

/** The longest name X-Actor may give, in characters (code points). */
const MAX_ACTOR_LENGTH = 128;

/**
 * A header value as the sender wrote it: Node hands header bytes over one character per byte
 * (Latin-1), so a UTF-8 name (`Zoë Müller`) would be stored garbled. A longer name is refused, not
 * cut: the audit's record of who acted must be what the caller said.
 */
function headerText(value: string): string {
  let text = value;
  if (/[\x80-\xff]/.test(value)) {
    const bytes = Buffer.from(value, 'latin1');
    if (isUtf8(bytes)) text = bytes.toString('utf8');
  }
  if (text.length > MAX_ACTOR_LENGTH && Array.from(text).length > MAX_ACTOR_LENGTH)
    throw fieldError('X-Actor', `Must be at most ${MAX_ACTOR_LENGTH} characters`);
  // A name is shown in histories and exports beside other text: a bidi control would reorder what
  // a reader sees there (an override makes "evil" read "live").
  if (BIDI_CONTROL.test(text))
    throw fieldError(
      'X-Actor',
      'Must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)',
    );
  return text;
}
