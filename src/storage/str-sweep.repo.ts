import { sql } from 'kysely';
import type { HistoryEntry } from '../domain/cases/state-machines.ts';
import type { Db } from './db.ts';

/** An STR case the sweep has not handled yet. */
export interface StrCandidate {
  id: string;
  client_id: string;
  case_number: string;
  created_at: Date;
  customer_id: string | null;
}

// Only a closing as str_filed ends the filing deadline; any other closing leaves the STR unfiled.
const PENDING = sql`is_str AND NOT str_sweep_done AND NOT (status = 'closed' AND resolution IS NOT DISTINCT FROM 'str_filed')`;

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
                 ORDER BY a.created_at LIMIT 1) AS customer_id
          FROM cases c
         WHERE ${PENDING} AND c.created_at < ${before.toISOString()}::timestamptz
           ${after ? sql`AND (c.created_at, c.id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)` : sql``}
         ORDER BY c.created_at, c.id
         LIMIT ${limit}`.execute(db);
      return res.rows;
    },

    /**
     * Marks cases as swept and returns those this caller marked: the conditional UPDATE lets one
     * instance win each case, so the rule is evaluated once per case however many instances sweep.
     */
    async claim(ids: string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const res = await sql<{ id: string }>`
        UPDATE cases SET str_sweep_done = true
         WHERE id IN (${sql.join(ids)}) AND ${PENDING}
         RETURNING id`.execute(db);
      return res.rows.map((r) => r.id);
    },

    /** Gives a case back to the next sweep (its evaluation failed). */
    async release(id: string): Promise<void> {
      await sql`UPDATE cases SET str_sweep_done = false WHERE id = ${id}`.execute(db);
    },

    /** Records in the case's history what the sweep did. */
    async note(id: string, entry: HistoryEntry): Promise<void> {
      await sql`UPDATE cases SET history = history || ${JSON.stringify([entry])}::jsonb WHERE id = ${id}`.execute(
        db,
      );
    },

    /** The case's current status (for the history entry). */
    async status(id: string): Promise<string | undefined> {
      const row = await db.selectFrom('cases').select('status').where('id', '=', id).executeTakeFirst();
      return row?.status;
    },
  };
}
export type StrSweepRepo = ReturnType<typeof createStrSweepRepo>;
