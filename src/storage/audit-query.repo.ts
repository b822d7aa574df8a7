import { sql } from 'kysely';
import { findRule } from '../domain/rules/catalogue.ts';
import type { Db } from './db.ts';

/** An evaluation id as text: anything else names no evaluation (no rows, rather than a cast error). */
export const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AuditFilter {
  client_id: string;
  from?: Date;
  to?: Date;
  rule_id?: string;
  customer_id?: string;
  transaction_id?: string;
  /** One evaluation's rows (the evaluation detail links here). */
  evaluation_id?: string;
  /** Only evaluations at chain positions after this one. */
  after_seq?: number;
  /** Only evaluations at chain positions up to this one (the answer's cut: see ChainCut). */
  through_seq?: number;
  /**
   * The earliest and latest evaluated_at among the positions of (after_seq, through_seq]
   * (PostgreSQL's text of them): the time span that bounds the scan, which is driven by the time
   * index (see chainConditions). 'infinity' as `since` when no position is in that range.
   */
  since?: string;
  until?: string;
}

/** Position of a row in the newest-first order: (evaluated_at, evaluation_id, rule_position). */
export interface AuditCursor {
  at: string;
  id: string;
  pos: number;
}

export interface AuditRow {
  client_id: string;
  evaluation_id: string;
  rule_id: string;
  result: string;
  trigger_type: string;
  trigger_entity_type: string | null;
  trigger_entity_id: string | null;
  evaluated_at: string;
  transaction_blocked: boolean;
  alert_generated: boolean;
  conditions_evaluated: string[];
  conditions_met: Record<string, boolean>;
  actions_executed: string[];
  severity: string;
  evaluator_id: string;
  customer_id: string | null;
  rule_set_version: string;
  /** The date of the high-risk country list applied (MICA-CDD-006), when that rule ran. */
  high_risk_list_date: string | null;
  rule_position: number;
}

/**
 * Reads the audit rows of `mica_rule_evaluations`. It expands the compact store itself (the view's
 * definition) so that every filter lands on an indexed column of `evaluations` before expansion.
 */
/** The conditions on `evaluations e` of a filter (each on an indexed column where one exists). */
function evaluationConditions(filter: AuditFilter) {
  const conds = [sql`e.client_id = ${filter.client_id}`];
  if (filter.from) conds.push(sql`e.evaluated_at >= ${filter.from}`);
  if (filter.to) conds.push(sql`e.evaluated_at < ${filter.to}`);
  if (filter.customer_id) conds.push(sql`e.customer_id = ${filter.customer_id}`);
  if (filter.transaction_id) conds.push(sql`e.trigger_entity_id = ${filter.transaction_id}`);
  conds.push(...chainConditions(filter, 'e'));
  // An id that is not a UUID names no evaluation: no rows, rather than a cast error.
  if (filter.evaluation_id !== undefined)
    conds.push(
      UUID_TEXT.test(filter.evaluation_id)
        ? sql`e.evaluation_id = ${filter.evaluation_id}::uuid`
        : sql`false`,
    );
  if (filter.rule_id) {
    // Narrow by the trigger types that evaluate the rule (indexed), then by the rule itself.
    const rule = findRule(filter.rule_id);
    const triggers = [...(rule?.contexts ?? []), 'manual'];
    conds.push(sql`e.trigger_type = ANY(${triggers}::text[])`);
    conds.push(sql`e.rule_ids @> ARRAY[${filter.rule_id}]::text[]`);
  }
  return conds;
}

/**
 * The conditions of a filter's chain positions on the evaluations (or their view) `alias`. The
 * positions are compared as `chain_seq + 0`, which no index serves: every statement is planned
 * generically (plan_cache_mode force_generic_plan, db.ts), without the values, and a range on the
 * (client_id, chain_seq) index then looked as good as the time index, so a page read and sorted
 * its whole range. The scan is bounded by time instead: `since` / `until` (chainCut) or the
 * caller's dates.
 */
export function chainConditions(filter: AuditFilter, alias: 'e' | 'x') {
  const seq = sql`(${sql.ref(`${alias}.chain_seq`)} + 0)`;
  const at = sql.ref(alias === 'e' ? 'e.evaluated_at' : 'x.executed_at');
  const conds = [];
  if (filter.after_seq !== undefined) conds.push(sql`${seq} > ${filter.after_seq}`);
  if (filter.through_seq !== undefined) conds.push(sql`${seq} <= ${filter.through_seq}`);
  if (filter.since !== undefined) conds.push(sql`${at} >= ${filter.since}::timestamptz`);
  if (filter.until !== undefined) conds.push(sql`${at} <= ${filter.until}::timestamptz`);
  return conds;
}

/**
 * Evaluations at or after (`inclusive`) or strictly after the cursor in the newest-first order.
 * Written with a plain bound on evaluated_at first, so that the index on (client_id,
 * evaluated_at) starts the scan at the cursor instead of filtering every newer row.
 */
function afterCursor(at: string, id: string, inclusive: boolean) {
  const tie = inclusive ? sql`e.evaluation_id::text <= ${id}` : sql`e.evaluation_id::text < ${id}`;
  return sql`e.evaluated_at <= ${at}::timestamptz AND (e.evaluated_at < ${at}::timestamptz OR ${tie})`;
}

/** The audit columns of a row (evaluation `e`, rule result `r`). */
const ROW_COLUMNS = sql`
  e.client_id, e.evaluation_id::text AS evaluation_id, r.value->>'rule_id' AS rule_id,
  r.value->>'result' AS result, e.trigger_type, e.trigger_entity_type, e.trigger_entity_id,
  to_char(e.evaluated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS evaluated_at,
  e.transaction_blocked, e.alert_generated,
  (SELECT coalesce(json_agg(k.key), '[]'::json) FROM json_each(r.value->'conditions_met') k)
    AS conditions_evaluated,
  r.value->'conditions_met' AS conditions_met, r.value->'actions_to_execute' AS actions_executed,
  r.value->>'severity' AS severity, e.evaluator_id, e.customer_id, e.rule_set_version,
  e.high_risk_list_date, r.ordinality::int AS rule_position`;

/** The columns of `evaluations` the rows need (never the request text). */
const EVALUATION_COLUMNS = sql`
  e.evaluation_id, e.client_id, e.trigger_type, e.trigger_entity_type, e.trigger_entity_id, e.evaluated_at,
  e.transaction_blocked, e.alert_generated, e.evaluator_id, e.customer_id, e.rule_set_version,
  e.high_risk_list_date, e.response`;

/** The columns of an exported evaluation (ExportEvaluation), plus its time to sort by. */
const EXPORT_COLUMNS = sql`
  e.client_id, e.evaluation_id::text AS evaluation_id, e.trigger_type, e.trigger_entity_type,
  e.trigger_entity_id, to_char(e.evaluated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS evaluated_at,
  e.evaluated_at::text AS cursor_at, e.evaluated_at AS sort_at, e.transaction_blocked, e.alert_generated,
  e.evaluator_id, e.customer_id, e.rule_set_version, e.high_risk_list_date, e.response::text AS response`;

/** An evaluation as an export reads it: the audit columns and the response (JSON text). */
export interface ExportEvaluation {
  client_id: string;
  evaluation_id: string;
  trigger_type: string;
  trigger_entity_type: string | null;
  trigger_entity_id: string | null;
  evaluated_at: string;
  /** evaluated_at at full precision, where the next page starts. */
  cursor_at: string;
  transaction_blocked: boolean;
  alert_generated: boolean;
  evaluator_id: string;
  customer_id: string | null;
  rule_set_version: string;
  high_risk_list_date: string | null;
  response: string;
}

export function createAuditQueryRepo(db: Db) {
  return {
    /** The client's chain head: the last position committed (0 before its first evaluation). */
    async chainHead(clientId: string): Promise<number> {
      const res = await sql<{ seq: string | number }>`
        SELECT seq FROM audit_chain_heads WHERE client_id = ${clientId}`.execute(db);
      return Number(res.rows[0]?.seq ?? 0);
    },

    /**
     * The earliest and latest evaluated_at among a client's positions in (after, through], as
     * PostgreSQL's text of them (full precision); undefined when there is none. Reads only those
     * positions, through the chain index: the subquery (OFFSET 0) keeps the generic plan from
     * turning min()/max() into a walk of the time index over every row of the client.
     */
    async spanOf(
      clientId: string,
      after: number,
      through: number,
    ): Promise<{ low: string; high: string } | undefined> {
      const res = await sql<{ low: string | null; high: string | null }>`
        SELECT min(s.evaluated_at)::text AS low, max(s.evaluated_at)::text AS high
          FROM (SELECT evaluated_at FROM evaluations
                 WHERE client_id = ${clientId} AND chain_seq > ${after} AND chain_seq <= ${through}
                OFFSET 0) s`.execute(db);
      const row = res.rows[0];
      return row?.low && row.high ? { low: row.low, high: row.high } : undefined;
    },

    async page(filter: AuditFilter, after: AuditCursor | undefined, limit: number): Promise<AuditRow[]> {
      const conds = evaluationConditions(filter);
      if (after) conds.push(afterCursor(after.at, after.id, true));
      const rowConds = [sql`true`];
      if (filter.rule_id) rowConds.push(sql`r.value->>'rule_id' = ${filter.rule_id}`);
      if (after)
        rowConds.push(
          sql`((e.evaluated_at, e.evaluation_id::text) < (${after.at}::timestamptz, ${after.id}) OR r.ordinality > ${after.pos})`,
        );
      const res = await sql<AuditRow>`
        SELECT ${ROW_COLUMNS}
          FROM (SELECT ${EVALUATION_COLUMNS} FROM evaluations e WHERE ${sql.join(conds, sql` AND `)}
                 ORDER BY e.evaluated_at DESC, e.evaluation_id::text DESC LIMIT ${limit + 1}) e
         CROSS JOIN LATERAL json_array_elements(e.response->'results') WITH ORDINALITY AS r(value, ordinality)
         WHERE ${sql.join(rowConds, sql` AND `)}
         ORDER BY e.evaluated_at DESC, e.evaluation_id::text DESC, r.ordinality
         LIMIT ${limit}`.execute(db);
      return res.rows;
    },

    /**
     * Up to `limit` evaluations after `after`, newest first, for exports: their audit columns and
     * the stored response as text. The rows are expanded from the response by the caller, which
     * costs far less than expanding them in SQL and sending every row across.
     */
    async exportPage(
      filter: AuditFilter,
      after: { at: string; id: string } | undefined,
      limit: number,
    ): Promise<ExportEvaluation[]> {
      const where = sql.join(evaluationConditions(filter), sql` AND `);
      // Keyset paging that stays O(page) however large the table: the page's time window is found
      // first with a backward scan of the (client_id, evaluated_at) index that stops after `limit`
      // rows; then only that window (plus the cursor's own timestamp, for ties) is read and sorted.
      // A single query ordered by (evaluated_at, evaluation_id) lets the planner sort every row.
      const older = after ? sql`e.evaluated_at < ${after.at}::timestamptz` : sql`true`;
      const ties = after
        ? sql`SELECT ${EXPORT_COLUMNS} FROM evaluations e
               WHERE ${where} AND e.evaluated_at = ${after.at}::timestamptz AND e.evaluation_id::text < ${after.id}
              UNION ALL`
        : sql``;
      const res = await sql<ExportEvaluation>`
        WITH win AS (
          SELECT min(evaluated_at) AS low FROM (
            SELECT e.evaluated_at FROM evaluations e WHERE ${where} AND ${older}
             ORDER BY e.evaluated_at DESC LIMIT ${limit}) w
        )
        SELECT * FROM (
          ${ties}
          SELECT ${EXPORT_COLUMNS} FROM evaluations e
           WHERE ${where} AND ${older} AND e.evaluated_at >= (SELECT low FROM win)
        ) page
        ORDER BY page.sort_at DESC, page.evaluation_id DESC LIMIT ${limit}`.execute(db);
      return res.rows;
    },
  };
}
export type AuditQueryRepo = ReturnType<typeof createAuditQueryRepo>;
