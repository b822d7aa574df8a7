import { sql } from 'kysely';
import { findRule } from '../domain/rules/catalogue.ts';
import type { Db } from './db.ts';

export interface AuditFilter {
  client_id: string;
  from?: Date;
  to?: Date;
  rule_id?: string;
  customer_id?: string;
  transaction_id?: string;
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
  rule_position: number;
}

/**
 * Reads the audit rows of `mica_rule_evaluations`. It expands the compact store itself (the view's
 * definition) so that every filter lands on an indexed column of `evaluations` before expansion.
 */
export function createAuditQueryRepo(db: Db) {
  return {
    async page(filter: AuditFilter, after: AuditCursor | undefined, limit: number): Promise<AuditRow[]> {
      const conds = [sql`e.client_id = ${filter.client_id}`];
      if (filter.from) conds.push(sql`e.evaluated_at >= ${filter.from}`);
      if (filter.to) conds.push(sql`e.evaluated_at < ${filter.to}`);
      if (filter.customer_id) conds.push(sql`e.customer_id = ${filter.customer_id}`);
      if (filter.transaction_id) conds.push(sql`e.trigger_entity_id = ${filter.transaction_id}`);
      if (filter.rule_id) {
        // Narrow by the trigger types that evaluate the rule (indexed), then by the rule itself.
        const rule = findRule(filter.rule_id);
        const triggers = [...(rule?.contexts ?? []), 'manual'];
        conds.push(sql`e.trigger_type = ANY(${triggers}::text[])`);
        conds.push(sql`e.rule_ids @> ARRAY[${filter.rule_id}]::text[]`);
      }
      if (after)
        conds.push(sql`(e.evaluated_at, e.evaluation_id::text) <= (${after.at}::timestamptz, ${after.id})`);
      const rowConds = [sql`true`];
      if (filter.rule_id) rowConds.push(sql`r.value->>'rule_id' = ${filter.rule_id}`);
      if (after)
        rowConds.push(
          sql`((e.evaluated_at, e.evaluation_id::text) < (${after.at}::timestamptz, ${after.id}) OR r.ordinality > ${after.pos})`,
        );
      const res = await sql<AuditRow>`
        SELECT e.client_id, e.evaluation_id::text AS evaluation_id, r.value->>'rule_id' AS rule_id,
               r.value->>'result' AS result, e.trigger_type, e.trigger_entity_type, e.trigger_entity_id,
               to_char(e.evaluated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS evaluated_at,
               e.transaction_blocked, e.alert_generated,
               (SELECT coalesce(json_agg(k.key), '[]'::json) FROM json_each(r.value->'conditions_met') k)
                 AS conditions_evaluated,
               r.value->'conditions_met' AS conditions_met, r.value->'actions_to_execute' AS actions_executed,
               r.value->>'severity' AS severity, e.evaluator_id, e.customer_id, e.rule_set_version,
               r.ordinality::int AS rule_position
          FROM (SELECT * FROM evaluations e WHERE ${sql.join(conds, sql` AND `)}
                 ORDER BY e.evaluated_at DESC, e.evaluation_id::text DESC LIMIT ${limit + 1}) e
         CROSS JOIN LATERAL json_array_elements(e.response->'results') WITH ORDINALITY AS r(value, ordinality)
         WHERE ${sql.join(rowConds, sql` AND `)}
         ORDER BY e.evaluated_at DESC, e.evaluation_id::text DESC, r.ordinality
         LIMIT ${limit}`.execute(db);
      return res.rows;
    },
  };
}
export type AuditQueryRepo = ReturnType<typeof createAuditQueryRepo>;
