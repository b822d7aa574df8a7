import { type Selectable, sql } from 'kysely';
import type { OfficerLoad } from '../domain/cases/assignment.ts';
import type { Db } from './db.ts';
import type { ClientsTable } from './schema.ts';
import { retryConflicts } from './store-errors.ts';

export type ClientRow = Selectable<ClientsTable>;

/** An open case of an officer being removed. */
export interface OpenCase {
  id: string;
  case_number: string;
  status: string;
  updated_at: Date;
}

/** SQL for tenants. */
export function createClientsRepo(db: Db) {
  return {
    async insert(row: {
      client_id: string;
      name: string;
      settings?: Record<string, unknown>;
    }): Promise<boolean> {
      const res = await db
        .insertInto('clients')
        .values({ client_id: row.client_id, name: row.name, settings: JSON.stringify(row.settings ?? {}) })
        .onConflict((oc) => oc.column('client_id').doNothing())
        .returning('client_id')
        .executeTakeFirst();
      return res !== undefined;
    },
    async get(clientId: string): Promise<ClientRow | undefined> {
      return db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    },
    async updateSettings(clientId: string, settings: Record<string, unknown>): Promise<boolean> {
      const res = await db
        .updateTable('clients')
        .set({ settings: JSON.stringify(settings) })
        .where('client_id', '=', clientId)
        .returning('client_id')
        .executeTakeFirst();
      return res !== undefined;
    },
    async addOfficer(clientId: string, officer: string): Promise<boolean> {
      const res = await db
        .insertInto('compliance_officers')
        .values({ client_id: clientId, officer })
        .onConflict((oc) => oc.columns(['client_id', 'officer']).doNothing())
        .returning('officer')
        .executeTakeFirst();
      return res !== undefined;
    },
    /**
     * Removes an officer and, in the same transaction, moves each of its open cases (locked) where
     * `plan` says, appending the plan's entry to the case's history (its `at` the case's new last
     * change). Undefined when the client has no such officer.
     *
     * The order avoids a lost case, and deadlocks but with another removal (then run again). The
     * officer's open cases are locked first,
     * as every move of a case locks the case before its officer's row (the open-case count's
     * trigger); then the officer's row is deleted, which waits for whoever is giving it a new case
     * (they key-share lock it: follow-ups.repo, isOfficer) and keeps anyone from doing so after;
     * then the open cases are read again, those new ones included.
     */
    async removeOfficer(
      clientId: string,
      officer: string,
      plan: (
        cases: OpenCase[],
        loads: OfficerLoad[],
      ) => Array<{ case: OpenCase; to: string | null; entry: { at: string; [k: string]: unknown } }>,
    ): Promise<Array<{ case_number: string; assignee: string | null }> | undefined> {
      const openCases = (trx: Db) =>
        trx
          .selectFrom('cases')
          .select(['id', 'case_number', 'status', 'updated_at'])
          .where('client_id', '=', clientId)
          .where('assignee', '=', officer)
          .where('status', '<>', 'closed')
          .orderBy('due_at')
          .orderBy('id')
          .forUpdate()
          .execute();
      return retryConflicts(() =>
        db.transaction().execute(async (trx) => {
          await openCases(trx);
          const gone = await trx
            .deleteFrom('compliance_officers')
            .where('client_id', '=', clientId)
            .where('officer', '=', officer)
            .returning('officer')
            .executeTakeFirst();
          if (!gone) return undefined;
          const open = await openCases(trx);
          if (open.length === 0) return [];
          // Key-share locked, as for a new case: an officer removed meanwhile is waited for and
          // skipped, never handed a case (two removals handing cases to each other deadlock, and
          // one runs again).
          const loads = await trx
            .selectFrom('compliance_officers')
            .select(['officer', 'open_cases'])
            .where('client_id', '=', clientId)
            .orderBy('officer')
            .forKeyShare()
            .execute();
          const moves = plan(
            open,
            loads.map((o) => ({ name: o.officer, openCases: Number(o.open_cases) })),
          );
          for (const m of moves)
            await sql`UPDATE cases SET assignee = ${m.to}, updated_at = ${m.entry.at},
                             history = history || ${JSON.stringify([m.entry])}::jsonb
                       WHERE id = ${m.case.id}`.execute(trx);
          return moves.map((m) => ({ case_number: m.case.case_number, assignee: m.to }));
        }),
      );
    },
    async officers(clientId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('compliance_officers')
        .select('officer')
        .where('client_id', '=', clientId)
        .orderBy('officer')
        .execute();
      return rows.map((r) => r.officer);
    },
    async count(): Promise<number> {
      const row = await db
        .selectFrom('clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
export type ClientsRepo = ReturnType<typeof createClientsRepo>;
