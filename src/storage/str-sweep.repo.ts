import { sql } from 'kysely';
import type { Db } from './db.ts';

/** An STR case the sweep has not handled yet. */
export interface StrCandidate {
  id: string;
  client_id: string;
  case_number: string;
  created_at: Date;
  customer_id: string | null;
  /** When the case was closed as str_filed (its closing history entry); null while it is not. */
  filed_at: string | null;
}

/**
 * How long a claim holds a case: a sweep evaluates a page of claimed cases in seconds; a claim
 * older than this belongs to a sweep that died, and the case is taken up again.
 */
export const STR_CLAIM_LEASE_MS = 10 * 60_000;

// Every STR case the sweep has not settled: a closing as str_filed is judged by when it happened
// (filed after the deadline is still a missed deadline), any other closing leaves the STR unfiled.
const PENDING = sql`is_str AND NOT str_sweep_done`;
/** Not held by a live claim of another sweep. */
const UNCLAIMED = (now: Date) =>
  sql`(str_sweep_claimed_at IS NULL OR str_sweep_claimed_at < ${new Date(now.getTime() - STR_CLAIM_LEASE_MS).toISOString()}::timestamptz)`;

/** SQL of the STR sweep: find, claim (once, across instances), release on failure, note in history. */
export function createStrSweepRepo(db: Db) {
  return {
    /** Pending STR cases created before `before`, after the keyset position, oldest first. */
    async candidates(
      before: Date,
      after: { createdAt: string; id: string } | undefined,
      limit: number,
    ): Promise<StrCandidate[]> {
      const res = await sql<StrCandidate>`
        SELECT c.id, c.client_id, c.case_number, c.created_at,
               (SELECT a.customer_id FROM alerts a
                 WHERE a.case_id = c.id AND a.customer_id IS NOT NULL
                 ORDER BY a.created_at LIMIT 1) AS customer_id,
               CASE WHEN c.status = 'closed' AND c.resolution = 'str_filed' THEN
                 (SELECT min(h->>'at') FROM jsonb_array_elements(c.history) h
                   WHERE h->>'to' = 'closed' AND h->>'from' <> 'closed')
               END AS filed_at
          FROM cases c
         WHERE ${PENDING} AND ${UNCLAIMED(before)} AND c.created_at < ${before.toISOString()}::timestamptz
           ${after ? sql`AND (c.created_at, c.id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)` : sql``}
         ORDER BY c.created_at, c.id
         LIMIT ${limit}`.execute(db);
      return res.rows;
    },

    /**
     * Claims cases for STR_CLAIM_LEASE_MS and returns those this caller claimed: the conditional
     * UPDATE lets one instance win each case, so the rule is evaluated once per case however many
     * instances sweep. A claim is not "done": that is set once the evaluation is committed.
     */
    async claim(ids: string[], now: Date): Promise<string[]> {
      if (ids.length === 0) return [];
      const res = await sql<{ id: string }>`
        UPDATE cases SET str_sweep_claimed_at = ${now.toISOString()}::timestamptz
         WHERE id IN (${sql.join(ids)}) AND ${PENDING} AND ${UNCLAIMED(now)}
         RETURNING id`.execute(db);
      return res.rows.map((r) => r.id);
    },

    /** Settles cases filed in time: nothing to evaluate, not read again (one statement per page). */
    async settle(ids: string[]): Promise<void> {
      if (ids.length === 0) return;
      await sql`UPDATE cases SET str_sweep_done = true, str_sweep_claimed_at = NULL
                 WHERE id IN (${sql.join(ids)}) AND NOT str_sweep_done`.execute(db);
    },

    /** Gives a case back to the next sweep at once (its evaluation failed). */
    async release(id: string): Promise<void> {
      await sql`UPDATE cases SET str_sweep_claimed_at = NULL WHERE id = ${id} AND NOT str_sweep_done`.execute(
        db,
      );
    },

    /** Whether the sweep's evaluation of this case is already stored (committed before a failure). */
    async evaluated(c: { client_id: string; case_number: string }, evaluator: string): Promise<boolean> {
      const row = await db
        .selectFrom('evaluations')
        .select('evaluation_id')
        .where('client_id', '=', c.client_id)
        .where('trigger_entity_id', '=', c.case_number)
        .where('evaluator_id', '=', evaluator)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Marks a case swept (its evaluation is committed), with what the sweep did in its history: an
     * entry in the case's status as it is when the row is written (not as read before), at `note.at`
     * or the case's last change if later, which becomes its last change. Without it, the
     * transitions trail from that time on passed over the case (it skips cases not updated since)
     * and left the note out.
     */
    async done(id: string, note: { at: string; actor: string; note: string } | undefined): Promise<void> {
      if (!note) {
        await sql`UPDATE cases SET str_sweep_done = true, str_sweep_claimed_at = NULL WHERE id = ${id}`.execute(
          db,
        );
        return;
      }
      await sql`
        UPDATE cases SET str_sweep_done = true, str_sweep_claimed_at = NULL,
               updated_at = greatest(updated_at, ${note.at}::timestamptz),
               history = history || jsonb_build_array(jsonb_build_object(
                 'at', to_char(greatest(updated_at, ${note.at}::timestamptz) AT TIME ZONE 'UTC',
                               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                 'actor', ${note.actor}::text, 'from', status, 'to', status, 'note', ${note.note}::text))
         WHERE id = ${id}`.execute(db);
    },
  };
}
export type StrSweepRepo = ReturnType<typeof createStrSweepRepo>;
