// The answers of wallet screening and travel-rule validation, with the evaluation behind them. Their
// bodies are fixed by the spec, so the id travels in a header (`X-Evaluation-Id`), and a cached
// answer keeps the id of the evaluation that produced it: the caller can read the audited record
// back (GET /api/mica/evaluations/{id}) however the answer was served.

/** An answer and the evaluation whose audit rows back it. */
export interface EvaluatedAnswer {
  /** The response body as JSON text: the bytes cached and answered. */
  json: string;
  /** The evaluation that decided it (for a cached or shared answer: the one that was audited). */
  evaluationId: string;
}

/** The header naming the evaluation behind an answer. */
export const EVALUATION_ID_HEADER = 'X-Evaluation-Id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a cache entry's fingerprint is followed by, before the evaluation id. */
const ID_TAG = '\tevaluation=';

/**
 * A cache entry: `<fingerprint>\tevaluation=<uuid>\n<json>`. The tab right after the fingerprint is
 * deliberate: the previous format was `<fingerprint>\n<json>`, which an instance of the previous
 * version matches with `startsWith(fingerprint + '\n')` — during a rolling upgrade sharing one Redis
 * it reads this entry as a miss, rather than answer `\tevaluation=…` as the body.
 */
export function cacheEntry(fingerprint: string, answer: EvaluatedAnswer): string {
  return `${fingerprint}${ID_TAG}${answer.evaluationId}\n${answer.json}`;
}

/**
 * The answer held in `entry` for `fingerprint`, or undefined (a miss): no entry, another
 * fingerprint, or an entry of the previous format without an id. Such an entry is not served: its
 * answer could not name its evaluation, and every 200 does; it lives 300 s at most, so treating it
 * as a miss costs at most the one evaluation its expiry would have cost a few minutes later.
 */
export function answerOfEntry(entry: string | undefined, fingerprint: string): EvaluatedAnswer | undefined {
  const head = fingerprint + ID_TAG;
  if (!entry?.startsWith(head)) return undefined;
  const end = entry.indexOf('\n', head.length);
  if (end < 0) return undefined;
  const evaluationId = entry.slice(head.length, end);
  return UUID.test(evaluationId) ? { json: entry.slice(end + 1), evaluationId } : undefined;
}
