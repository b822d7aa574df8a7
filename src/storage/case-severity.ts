import { type RawBuilder, sql } from 'kysely';

/** Severities in rising order; a case's severity is the highest of its alerts and its evaluation. */
export const SEVERITY_ORDER = ['low', 'medium', 'high', 'critical'] as const;

/** The 1-based rank of a severity in SEVERITY_ORDER; undefined for anything else. */
export function severityRank(severity: string): number | undefined {
  const i = (SEVERITY_ORDER as readonly string[]).indexOf(severity);
  return i < 0 ? undefined : i + 1;
}

/**
 * The rank (1 = low … 4 = critical) of the highest severity of a case's linked alerts (those it
 * holds and those escalated out of it, as its `alert_ids` lists them) and its evaluation, as a correlated scalar subquery over the case row named `alias`; NULL when it has
 * none. One expression for both showing a case's severity and filtering the queue by it, so the two
 * can never disagree.
 */
export function caseSeverityRankSql(alias: string): RawBuilder<number | null> {
  const order = sql`ARRAY[${sql.join([...SEVERITY_ORDER])}]::text[]`;
  const col = (c: string) => sql.ref(`${alias}.${c}`);
  return sql<number | null>`(
    SELECT max(x.rank)::int FROM (
      SELECT array_position(${order}, a.severity) AS rank
        FROM alerts a WHERE a.client_id = ${col('client_id')} AND a.case_id = ${col('id')}
      UNION ALL
      -- The alerts escalated out of it, which it still lists (migration 022).
      SELECT array_position(${order}, a.severity)
        FROM case_former_alerts f JOIN alerts a ON a.id = f.alert_id
       WHERE f.client_id = ${col('client_id')} AND f.case_id = ${col('id')}
      UNION ALL
      SELECT array_position(${order}, e.highest_severity)
        FROM evaluations e
       WHERE ${col('evaluation_id')} IS NOT NULL AND e.client_id = ${col('client_id')}
         AND e.evaluation_id = ${col('evaluation_id')}
    ) x)`;
}
