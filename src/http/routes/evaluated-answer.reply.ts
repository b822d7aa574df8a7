import type { FastifyReply } from 'fastify';
import { EVALUATION_ID_HEADER, type EvaluatedAnswer } from '../../services/evaluated-answer.ts';

/**
 * A screening's or travel-rule validation's answer, sent as the cached JSON text (a hit and a miss
 * answer the same bytes); the body is the spec's, so the audited evaluation behind it is named in
 * a header.
 */
export function sendEvaluatedAnswer(reply: FastifyReply, answer: EvaluatedAnswer) {
  return reply
    .header(EVALUATION_ID_HEADER, answer.evaluationId)
    .type('application/json; charset=utf-8')
    .send(answer.json as never);
}
