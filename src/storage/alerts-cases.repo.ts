import { type Selectable, sql } from 'kysely';
import type { HistoryEntry } from '../domain/cases/state-machines.ts';
import { caseSeverityRankSql, severityRank } from './case-severity.ts';
import type { Db } from './db.ts';
import { insertFollowUps, type NewCase, type OpenedCase } from './follow-ups.repo.ts';
import type { AlertsTable, CasesTable } from './schema.ts';
import { retryConflicts } from './store-errors.ts';

/** An alert as the API reads it: `payload` is the stored JSON text, never parsed (see alertColumns). */
export type AlertRow = Omit<Selectable<AlertsTable>, 'payload' | 'headers'> & { payload: string | null };
export type CaseRow = Selectable<CasesTable>;

/** Keyset position in a listing ordered by (due_at, id). */
export interface After {
  dueAt: string;
  id: string;
}

/** Filters of a listing; `overdue` compares due_at with `now` for items not in a final status. */
export interface ListFilter {
  status?: string;
  /** An alert's severity; for a case, its severity (the highest of its alerts and evaluation). */
  severity?: string;
  assignee?: string;
  overdue?: boolean;
  now: Date;
  /** Statuses that are never overdue (from the state machines). */
  finalStatuses: string[];
}

/** The SQL form of the domain's isOverdue: strictly past due and not final. */
/** The filters both listings share (status, overdue, keyset position), as SQL conditions. */
function sharedConditions(f: ListFilter, after: After | undefined) {
  const conds = [];
  if (f.status !== undefined) conds.push(sql<boolean>`status = ${f.status}`);
  if (f.overdue !== undefined)
    conds.push(
      f.overdue
        ? overdueSql(f.now, f.finalStatuses)
        : sql<boolean>`NOT ${overdueSql(f.now, f.finalStatuses)}`,
    );
  if (after) conds.push(sql<boolean>`(due_at, id) > (${after.dueAt}::timestamptz, ${after.id}::uuid)`);
  return conds;
}

function overdueSql(now: Date, finalStatuses: string[]) {
  return sql<boolean>`(due_at < ${now.toISOString()}::timestamptz AND status NOT IN (${sql.join(finalStatuses)}))`;
}

/**
 * The columns of an alert read for the API. `payload` comes as text: the drivers (pg, PGlite) would
 * JSON.parse a `json` column and round a vendor's numbers; the text is what the vendor sent.
 */
export const alertColumns = [
  'id',
  'client_id',
  'status',
  'resolution',
  'severity',
  'source',
  'event',
  'vendor_object_id',
  'customer_id',
  'transaction_id',
  'evaluation_id',
  'case_id',
  'rule_ids',
  'due_at',
  'created_at',
  'updated_at',
  'history',
  sql<string | null>`payload::text`.as('payload'),
] as const;

/** Statements that need a row lock, bound to one transaction. */
function lockedStatements(trx: Db) {
  return {
    lockAlert: (clientId: string, id: string) =>
      trx
        .selectFrom('alerts')
        .selectAll()
        .where('client_id', '=', clientId)
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst(),
    lockCase: (clientId: string, id: string) =>
      trx
        .selectFrom('cases')
        .selectAll()
        .where('client_id', '=', clientId)
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst(),
    openCase: (c: NewCase): Promise<OpenedCase[]> => insertFollowUps(trx, [c], []),
    /** Whether the officer is one of the client's, key-share locked (a removal running is waited for). */
    async isOfficer(clientId: string, officer: string): Promise<boolean> {
      const row = await trx
        .selectFrom('compliance_officers')
        .select('officer')
        .where('client_id', '=', clientId)
        .where('officer', '=', officer)
        .forKeyShare()
        .executeTakeFirst();
      return row !== undefined;
    },
    async officers(clientId: string): Promise<string[]> {
      const rows = await trx
        .selectFrom('compliance_officers')
        .select('officer')
        .where('client_id', '=', clientId)
        .orderBy('officer')
        .execute();
      return rows.map((r) => r.officer);
    },
    /** Sets an alert's status (and link) and appends one history entry. */
    async updateAlert(
      id: string,
      u: {
        status: string;
        resolution: string | null;
        case_id: string | null;
        at: string;
        /** `case_id`: the case the alert is in after this entry (the transitions trail reads it). */
        entry: HistoryEntry & { case_id: string | null };
      },
    ): Promise<void> {
      await sql`
        UPDATE alerts SET status = ${u.status}, resolution = ${u.resolution}, case_id = ${u.case_id},
               updated_at = ${u.at}, history = history || ${JSON.stringify([u.entry])}::jsonb
         WHERE id = ${id}`.execute(trx);
    },
    /** An alert left the case for another: the case keeps listing it (migration 022). */
    async recordFormerAlert(u: { client_id: string; case_id: string; alert_id: string; at: string }) {
      await trx
        .insertInto('case_former_alerts')
        .values({ client_id: u.client_id, case_id: u.case_id, alert_id: u.alert_id, left_at: u.at })
        .onConflict((oc) => oc.doNothing())
        .execute();
    },
    /** An alert joined the case: its rules join the case's (no duplicates, in order) and it is updated. */
    async joinCase(id: string, u: { rule_ids: string[]; at: string }): Promise<void> {
      await sql`
        UPDATE cases SET updated_at = ${u.at},
               rule_ids = ARRAY(SELECT r FROM unnest(rule_ids || ${u.rule_ids}::text[]) WITH ORDINALITY AS t(r, i)
                                GROUP BY r ORDER BY min(i))
         WHERE id = ${id}`.execute(trx);
    },
    /** Sets a case's status, resolution and assignee and appends one history entry. */
    async updateCase(
      id: string,
      u: {
        status: string;
        resolution: string | null;
        assignee: string | null;
        at: string;
        entry: HistoryEntry;
      },
    ): Promise<void> {
      await sql`
        UPDATE cases SET status = ${u.status}, resolution = ${u.resolution}, assignee = ${u.assignee},
               updated_at = ${u.at}, history = history || ${JSON.stringify([u.entry])}::jsonb
         WHERE id = ${id}`.execute(trx);
    },
  };
}
export type LockedStatements = ReturnType<typeof lockedStatements>;

/** SQL of the alerts and cases API; every query is scoped by the caller's client. */
export function createAlertsCasesRepo(db: Db) {
  return {
    /** Runs `fn` in a transaction, again if PostgreSQL rolled it back for a deadlock (retryConflicts). */
    inTransaction<T>(fn: (s: LockedStatements) => Promise<T>): Promise<T> {
      return retryConflicts(() => db.transaction().execute((trx) => fn(lockedStatements(trx))));
    },

    async listAlerts(
      clientId: string,
      f: ListFilter,
      after: After | undefined,
      limit: number,
    ): Promise<AlertRow[]> {
      let q = db.selectFrom('alerts').select(alertColumns).where('client_id', '=', clientId);
      if (f.severity !== undefined) q = q.where('severity', '=', f.severity);
      for (const c of sharedConditions(f, after)) q = q.where(c);
      return q.orderBy('due_at').orderBy('id').limit(limit).execute();
    },

    async listCases(
      clientId: string,
      f: ListFilter,
      after: After | undefined,
      limit: number,
    ): Promise<CaseRow[]> {
      let q = db.selectFrom('cases').selectAll().where('client_id', '=', clientId);
      if (f.assignee !== undefined) q = q.where('assignee', '=', f.assignee);
      // The case's severity (highest of its alerts and evaluation) is filtered here, in the query,
      // so a page is never cut short by rows dropped after it.
      if (f.severity !== undefined)
        q = q.where(sql<boolean>`${caseSeverityRankSql('cases')} = ${severityRank(f.severity) ?? 0}::int`);
      for (const c of sharedConditions(f, after)) q = q.where(c);
      return q.orderBy('due_at').orderBy('id').limit(limit).execute();
    },

    alert: (clientId: string, id: string): Promise<AlertRow | undefined> =>
      db
        .selectFrom('alerts')
        .select(alertColumns)
        .where('client_id', '=', clientId)
        .where('id', '=', id)
        .executeTakeFirst(),

    caseById: (clientId: string, id: string) =>
      db
        .selectFrom('cases')
        .selectAll()
        .where('client_id', '=', clientId)
        .where('id', '=', id)
        .executeTakeFirst(),

    caseByNumber: (clientId: string, caseNumber: string) =>
      db
        .selectFrom('cases')
        .selectAll()
        .where('client_id', '=', clientId)
        .where('case_number', '=', caseNumber)
        .executeTakeFirst(),

    /** The ids of the alerts linked to each case, oldest first. */
    async alertIdsOf(clientId: string, caseIds: string[]): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>(caseIds.map((id) => [id, []]));
      if (caseIds.length === 0) return out;
      // Its current alerts and those escalated out of it since, in the order they were raised.
      const links = db
        .selectFrom('alerts')
        .select(['id as alert_id', 'case_id'])
        .where('client_id', '=', clientId)
        .where('case_id', 'in', caseIds)
        .union(
          db
            .selectFrom('case_former_alerts')
            .select(['alert_id', 'case_id'])
            .where('client_id', '=', clientId)
            .where('case_id', 'in', caseIds),
        )
        .as('l');
      const rows = await db
        .selectFrom(links)
        .innerJoin('alerts as a', 'a.id', 'l.alert_id')
        .select(['a.id', 'l.case_id'])
        .where('a.client_id', '=', clientId)
        .orderBy('a.created_at')
        .orderBy('a.id')
        .execute();
      for (const r of rows) if (r.case_id) out.get(r.case_id)?.push(r.id);
      return out;
    },
  };
}
export type AlertsCasesRepo = ReturnType<typeof createAlertsCasesRepo>;
