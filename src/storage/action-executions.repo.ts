import { sql } from 'kysely';
import { type AuditFilter, chainConditions, UUID_TEXT } from './audit-query.repo.ts';
import type { Db } from './db.ts';

/** One executed action, as the view `mica_action_executions` shows it. */
export interface ActionExecutionRow {
  client_id: string;
  evaluation_id: string;
  rule_id: string;
  action_type: string;
  outcome: 'success' | 'failure';
  executed_at: string;
  executor_id: string;
  evidence: Record<string, unknown>;
  trigger_type: string;
  trigger_entity_id: string | null;
  customer_id: string | null;
  /** Where the next page starts: executed_at at full precision and the row's place in its evaluation. */
  cursor_at: string;
  rule_position: number;
  action_position: number;
}

/** Position of a row in the newest-first order. */
export interface ActionCursor {
  at: string;
  id: string;
  rule: number;
  action: number;
}

/** Reads `mica_action_executions` (migration 011) for one client, newest first, in keyset pages. */
export function createActionExecutionsRepo(db: Db) {
  return {
    async page(
      filter: AuditFilter & { action_type?: string },
      after: ActionCursor | undefined,
      limit: number,
    ): Promise<ActionExecutionRow[]> {
      const conds = [sql`x.client_id = ${filter.client_id}`];
      if (filter.from) conds.push(sql`x.executed_at >= ${filter.from}`);
      if (filter.to) conds.push(sql`x.executed_at < ${filter.to}`);
      if (filter.rule_id) conds.push(sql`x.rule_id = ${filter.rule_id}`);
      if (filter.customer_id) conds.push(sql`x.customer_id = ${filter.customer_id}`);
      if (filter.transaction_id) conds.push(sql`x.trigger_entity_id = ${filter.transaction_id}`);
      if (filter.action_type) conds.push(sql`x.action_type = ${filter.action_type}`);
      conds.push(...chainConditions(filter, 'x'));
      if (filter.evaluation_id !== undefined)
        conds.push(
          UUID_TEXT.test(filter.evaluation_id)
            ? sql`x.evaluation_id = ${filter.evaluation_id}::uuid`
            : sql`false`,
        );
      if (after)
        conds.push(sql`x.executed_at <= ${after.at}::timestamptz
          AND (x.executed_at < ${after.at}::timestamptz OR x.evaluation_id::text < ${after.id}
               OR (x.evaluation_id::text = ${after.id}
                   AND (x.rule_position, x.action_position) > (${after.rule}::int, ${after.action}::int)))`);
      const res = await sql<ActionExecutionRow>`
        SELECT x.client_id, x.evaluation_id::text AS evaluation_id, x.rule_id, x.action_type, x.outcome,
               to_char(x.executed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS executed_at,
               x.executor_id, x.evidence, x.trigger_type, x.trigger_entity_id, x.customer_id,
               x.executed_at::text AS cursor_at, x.rule_position, x.action_position
          FROM mica_action_executions x
         WHERE ${sql.join(conds, sql` AND `)}
         ORDER BY x.executed_at DESC, x.evaluation_id::text DESC, x.rule_position, x.action_position
         LIMIT ${limit}`.execute(db);
      return res.rows;
    },
  };
}
export type ActionExecutionsRepo = ReturnType<typeof createActionExecutionsRepo>;
