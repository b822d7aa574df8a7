import { sql } from 'kysely';
import { type AlertRow, alertColumns } from './alerts-cases.repo.ts';
import { caseSeverityRankSql, SEVERITY_ORDER } from './case-severity.ts';
import type { Db } from './db.ts';

export interface QueueCounts {
  open: number;
  overdue: number;
  due_today: number;
}

export interface RuleDayRow {
  rule_id: string;
  day: string;
  evaluations: number;
  triggers: number;
}

export interface EvaluationRecord {
  evaluation_id: string;
  evaluated_at: string;
  evaluator_id: string;
  rule_set_version: string;
  high_risk_list_date: string | null;
  request: unknown;
  response: unknown;
}

/** An open case an alert may be escalated into. */
export interface OpenCaseRow {
  id: string;
  case_number: string;
  status: string;
  assignee: string | null;
  reason: string;
  due_at: Date | string;
  total: number;
}

/** Keyset position in the transitions trail ordered by (at, kind, item_id, ord). */
export interface TransitionCursor {
  at: string;
  kind: string;
  id: string;
  ord: number;
}

export interface TransitionFilter {
  client_id: string;
  from?: Date;
  to?: Date;
  kind?: 'case' | 'alert';
  /** A case: its own entries and those of the alerts linked to it. */
  case_id?: string;
}

export interface TransitionRow {
  at: string;
  kind: 'case' | 'alert';
  item_id: string;
  case_id: string | null;
  case_number: string | null;
  actor: string;
  actor_name: string | null;
  from: string | null;
  to: string;
  note: string | null;
  resolution: string | null;
  ord: number;
}

/**
 * The case an alert was in at its history entry `h` (of alert `a`), as SQL. Entries written since
 * they carry it name it (`case_id`: the case after the entry, null for none). For earlier ones it is
 * derived from what recorded the moves: an alert leaves a case only by escalation into another,
 * which case_former_alerts records (`left_at`, the escalation entry's time); the case it holds after
 * its last move is `alerts.case_id`. So the case at time T is the first case left after T, else the
 * current one; and that case, if the alert was not in a case before it, was joined:
 * - at the alert's creation when opened with it (the same created_at);
 * - else at the first later entry that joined it: the escalation (which opened it, or joined it by
 *   `case_id`) or the webhook update that opened it (at the case's created_at);
 * and before that the alert was in no case.
 */
const caseAtEntry = sql`
  CASE WHEN h.value ? 'case_id' THEN (h.value->>'case_id')::uuid
  ELSE (
    SELECT CASE
             WHEN cand.case_id IS NULL THEN NULL
             WHEN EXISTS (SELECT 1 FROM case_former_alerts f
                           WHERE f.client_id = a.client_id AND f.alert_id = a.id
                             AND f.left_at <= (h.value->>'at')::timestamptz) THEN cand.case_id
             WHEN (h.value->>'at')::timestamptz >= (
               SELECT CASE WHEN c1.created_at = a.created_at THEN a.created_at
                           ELSE COALESCE((
                             SELECT min((e.value->>'at')::timestamptz)
                               FROM jsonb_array_elements(a.history) WITH ORDINALITY AS e(value, ord)
                              WHERE e.ord > 1 AND (e.value->>'at')::timestamptz >= c1.created_at
                                AND ((e.value->>'to' = 'escalated' AND e.value->>'from' IS DISTINCT FROM 'escalated')
                                     OR (e.value->>'at')::timestamptz = c1.created_at)), c1.created_at) END
                 FROM cases c1 WHERE c1.id = cand.case_id) THEN cand.case_id
           END
      FROM (SELECT COALESCE((SELECT f.case_id FROM case_former_alerts f
                              WHERE f.client_id = a.client_id AND f.alert_id = a.id
                                AND f.left_at > (h.value->>'at')::timestamptz
                              ORDER BY f.left_at LIMIT 1), a.case_id) AS case_id) cand)
  END`;

/** Read models of the web console (counts, severities, rule statistics, the transitions trail); tenant-scoped. */
export function createConsoleRepo(db: Db) {
  return {
    /**
     * Open (not final), overdue (past due, not final) and due today (not final, not yet overdue, due
     * before `endOfDay`) items of a client.
     */
    async counts(
      table: 'alerts' | 'cases',
      clientId: string,
      now: Date,
      endOfDay: Date,
      finalStatuses: string[],
    ): Promise<QueueCounts> {
      const at = now.toISOString();
      const open = sql`status NOT IN (${sql.join(finalStatuses)})`;
      const res = await sql<QueueCounts>`
        SELECT count(*) FILTER (WHERE ${open})::int AS open,
               count(*) FILTER (WHERE ${open} AND due_at < ${at}::timestamptz)::int AS overdue,
               count(*) FILTER (WHERE ${open} AND due_at >= ${at}::timestamptz AND due_at < ${endOfDay.toISOString()}::timestamptz)::int
                 AS due_today
          FROM ${sql.table(table)} WHERE client_id = ${clientId}`.execute(db);
      const row = res.rows[0];
      return {
        open: Number(row?.open ?? 0),
        overdue: Number(row?.overdue ?? 0),
        due_today: Number(row?.due_today ?? 0),
      };
    },

    /** The highest severity of each case's linked alerts and its evaluation; absent when it has none. */
    async caseSeverities(clientId: string, caseIds: string[]): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      if (caseIds.length === 0) return out;
      const res = await sql<{ id: string; rank: number | null }>`
        SELECT c.id::text AS id, ${caseSeverityRankSql('c')} AS rank
          FROM cases c
         WHERE c.client_id = ${clientId} AND c.id = ANY(${caseIds}::uuid[])`.execute(db);
      for (const r of res.rows) {
        const severity = r.rank === null ? undefined : SEVERITY_ORDER[r.rank - 1];
        if (severity) out.set(r.id, severity);
      }
      return out;
    },

    /** Evaluations and triggers per rule and UTC day in [from, to). */
    async ruleDays(clientId: string, from: Date, to: Date): Promise<RuleDayRow[]> {
      const res = await sql<RuleDayRow>`
        SELECT r.value->>'rule_id' AS rule_id,
               to_char(e.evaluated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
               count(*)::int AS evaluations,
               count(*) FILTER (WHERE (r.value->>'triggered')::boolean)::int AS triggers
          FROM evaluations e
         CROSS JOIN LATERAL json_array_elements(e.response->'results') AS r(value)
         WHERE e.client_id = ${clientId} AND e.evaluated_at >= ${from.toISOString()}::timestamptz
           AND e.evaluated_at < ${to.toISOString()}::timestamptz
         GROUP BY 1, 2
         ORDER BY 1, 2`.execute(db);
      return res.rows.map((r) => ({
        ...r,
        evaluations: Number(r.evaluations),
        triggers: Number(r.triggers),
      }));
    },

    /** A stored evaluation of the client: the request as received and the response as returned. */
    async evaluation(clientId: string, evaluationId: string) {
      const res = await sql<EvaluationRecord>`
        SELECT evaluation_id::text AS evaluation_id,
               to_char(evaluated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS evaluated_at,
               evaluator_id, rule_set_version, high_risk_list_date, request, response
          FROM evaluations
         WHERE client_id = ${clientId} AND evaluation_id = ${evaluationId}::uuid
         LIMIT 1`.execute(db);
      return res.rows[0];
    },

    /** A client's alerts of the given ids (any order; ids of other clients are not found), payload as text. */
    async alertsByIds(clientId: string, ids: string[]): Promise<AlertRow[]> {
      if (ids.length === 0) return [];
      return db
        .selectFrom('alerts')
        .select(alertColumns)
        .where('client_id', '=', clientId)
        .where('id', 'in', ids)
        .execute();
    },

    /** The stored responses of a client's evaluations of the given ids, by id (any order). */
    async evaluationResponses(clientId: string, ids: string[]): Promise<Map<string, unknown>> {
      const out = new Map<string, unknown>();
      if (ids.length === 0) return out;
      const rows = await db
        .selectFrom('evaluations')
        .select([sql<string>`evaluation_id::text`.as('id'), 'response'])
        .where('client_id', '=', clientId)
        .where('evaluation_id', 'in', ids)
        .execute();
      for (const r of rows) out.set(r.id, r.response);
      return out;
    },

    /**
     * A client's cases not in a final status, soonest due first, at most `limit`; each row carries
     * `total`, the count of all of them.
     */
    async openCases(clientId: string, finalStatuses: string[], limit: number): Promise<OpenCaseRow[]> {
      const res = await sql<OpenCaseRow>`
        SELECT id::text AS id, case_number, status, assignee, reason, due_at, count(*) OVER ()::int AS total
          FROM cases
         WHERE client_id = ${clientId} AND status NOT IN (${sql.join(finalStatuses)})
         ORDER BY due_at, id
         LIMIT ${limit}`.execute(db);
      return res.rows.map((r) => ({ ...r, total: Number(r.total) }));
    },

    /** The id of a client's case given by id or case number. */
    async caseIdOf(clientId: string, idOrNumber: string, isUuid: boolean): Promise<string | undefined> {
      let q = db.selectFrom('cases').select('id').where('client_id', '=', clientId);
      q = isUuid ? q.where('id', '=', idOrNumber.toLowerCase()) : q.where('case_number', '=', idOrNumber);
      return (await q.executeTakeFirst())?.id;
    },

    /**
     * One page of history entries of a client's cases and alerts, oldest first. An item holds an
     * entry at time T only if it was created by T and updated at or after T, which prunes items
     * before their history is expanded.
     */
    async transitions(
      f: TransitionFilter,
      after: TransitionCursor | undefined,
      limit: number,
    ): Promise<TransitionRow[]> {
      const lower = after ? new Date(after.at) : f.from;
      const itemConds = (alias: 'c' | 'a') => {
        const conds = [sql`${sql.ref(`${alias}.client_id`)} = ${f.client_id}`];
        if (lower) conds.push(sql`${sql.ref(`${alias}.updated_at`)} >= ${lower.toISOString()}::timestamptz`);
        if (f.to) conds.push(sql`${sql.ref(`${alias}.created_at`)} < ${f.to.toISOString()}::timestamptz`);
        // A case's alerts: those it holds and those escalated out of it (they stay its evidence).
        if (f.case_id)
          conds.push(
            alias === 'c'
              ? sql`c.id = ${f.case_id}::uuid`
              : // One set of ids from two indexes: `a.case_id = X OR a.id IN (…)` kept the planner
                // from using the case index, and every page scanned the client's whole alerts table.
                sql`a.id IN (
                  SELECT id FROM alerts WHERE client_id = ${f.client_id} AND case_id = ${f.case_id}::uuid
                  UNION
                  SELECT alert_id FROM case_former_alerts
                   WHERE client_id = ${f.client_id} AND case_id = ${f.case_id}::uuid)`,
          );
        return sql.join(conds, sql` AND `);
      };
      const parts = [];
      if (f.kind !== 'alert')
        parts.push(sql`
          SELECT 'case' AS kind, c.id::text AS item_id, c.id::text AS case_id, c.case_number,
                 c.resolution, h.value, h.ord
            FROM cases c CROSS JOIN LATERAL jsonb_array_elements(c.history) WITH ORDINALITY AS h(value, ord)
           WHERE ${itemConds('c')}`);
      // An alert's entry names the case the alert was in at that entry, not its case now.
      if (f.kind !== 'case')
        parts.push(sql`
          SELECT 'alert' AS kind, a.id::text AS item_id, m.case_id::text AS case_id, k.case_number,
                 a.resolution, h.value, h.ord
            FROM alerts a
           CROSS JOIN LATERAL jsonb_array_elements(a.history) WITH ORDINALITY AS h(value, ord)
           CROSS JOIN LATERAL (SELECT ${caseAtEntry} AS case_id) m
            LEFT JOIN cases k ON k.id = m.case_id AND k.client_id = a.client_id
           WHERE ${itemConds('a')}`);
      const rowConds = [sql`true`];
      if (f.from) rowConds.push(sql`(x.value->>'at')::timestamptz >= ${f.from.toISOString()}::timestamptz`);
      if (f.to) rowConds.push(sql`(x.value->>'at')::timestamptz < ${f.to.toISOString()}::timestamptz`);
      if (after)
        rowConds.push(
          sql`((x.value->>'at')::timestamptz, x.kind, x.item_id, x.ord) > (${after.at}::timestamptz, ${after.kind}, ${after.id}, ${after.ord}::bigint)`,
        );
      const res = await sql<TransitionRow>`
        SELECT to_char((x.value->>'at')::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
               x.kind, x.item_id, x.case_id, x.case_number,
               x.value->>'actor' AS actor, x.value->>'actor_name' AS actor_name, x.value->>'from' AS "from", x.value->>'to' AS "to",
               x.value->>'note' AS note,
               CASE WHEN x.value->>'to' = 'closed' THEN x.resolution END AS resolution,
               x.ord::int AS ord
          FROM (${sql.join(parts, sql` UNION ALL `)}) x
         WHERE ${sql.join(rowConds, sql` AND `)}
         ORDER BY (x.value->>'at')::timestamptz, x.kind, x.item_id, x.ord
         LIMIT ${limit}`.execute(db);
      return res.rows.map((r) => ({ ...r, ord: Number(r.ord) }));
    },
  };
}
export type ConsoleRepo = ReturnType<typeof createConsoleRepo>;
