import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.ts';

/** A case to open, before it has a number and an assignee (given inside the transaction). */
export interface NewCase {
  id: string;
  client_id: string;
  reason: string;
  is_str: boolean;
  rule_ids: string[];
  evaluation_id: string | null;
  due_at: string;
  created_at: string;
  actor: string;
  /** The person named for the key (officer or X-Actor); none for a part of the service. */
  actor_name?: string | null;
}

/** An alert to open; `case_id` links it to a case opened with it. */
export interface NewAlert {
  id: string;
  client_id: string;
  severity: string;
  source: string;
  event: string | null;
  vendor_object_id: string | null;
  customer_id: string | null;
  transaction_id: string | null;
  evaluation_id: string | null;
  case_id: string | null;
  rule_ids: string[];
  due_at: string;
  created_at: string;
  /**
   * A webhook's body as delivered (JSON text, kept verbatim by the `json` column: a number is never
   * rounded through a double); null for an evaluation's alert.
   */
  payload: string | null;
  headers: Record<string, string> | null;
  actor: string;
  /** The person named for the key (officer or X-Actor); none for a part of the service. */
  actor_name?: string | null;
}

export interface OpenedCase {
  id: string;
  case_number: string;
  assignee: string | null;
}

/** Case numbers as formatCaseNumber writes them (6 digits, longer past 999999), in SQL. */
const CASE_NUMBER_SQL = `'CASE-' || nc.year || '-' ||
  CASE WHEN ctr.last_seq - cnt.n + nc.k_year < 1000000
       THEN lpad((ctr.last_seq - cnt.n + nc.k_year)::text, 6, '0')
       ELSE (ctr.last_seq - cnt.n + nc.k_year)::text END`;

/**
 * The common table expressions that open cases and alerts, for one statement (`new_cases` returns
 * id, case_number, assignee). Numbers: each (client, year) counter row is incremented by the batch's
 * count and locked until the transaction ends, so numbers are unique and, since a rollback undoes
 * the increment, gap-free. Assignment (CONTRACT §5: fewest open cases, then name): officer i with
 * L_i open cases offers the slots L_i, L_i + 1, …; taking the batch's k smallest slots in (load,
 * name) order is exactly picking the least-loaded officer k times, counting the batch's own cases.
 * Names compare by code point (COLLATE "C"), as every instance must pick the same officer.
 * Each data-modifying expression always runs; the alerts' foreign keys to the cases are checked at
 * the end of the statement, when both are in.
 */
/** The first history entry of an alert or case: opened, by whom. */
function historyEntry(
  at: string,
  by: { actor: string; actor_name?: string | null },
  to: string,
  note: string | null,
) {
  return { at, actor: by.actor, actor_name: by.actor_name ?? null, from: null, to, note };
}

export function followUpCtes(
  cases: NewCase[],
  alerts: NewAlert[],
  /** When given: only the alerts with these ids (a subquery), and the cases they link, are opened. */
  liveAlertIds?: RawBuilder<unknown>,
) {
  const alertOfCase = new Map(alerts.flatMap((a) => (a.case_id ? [[a.case_id, a.id] as const] : [])));
  const live = (column: string) => (liveAlertIds ? sql`${sql.ref(column)} IN (${liveAlertIds})` : sql`true`);
  const caseRows = cases.map((c, pos) => ({
    ...c,
    pos,
    alert_id: alertOfCase.get(c.id) ?? null,
    year: new Date(c.created_at).getUTCFullYear(),
    history: [historyEntry(c.created_at, c, 'open', c.reason)],
  }));
  // An alert's entries name the case it is in after them (console.repo: the transitions trail).
  const alertRows = alerts.map((a) => ({
    ...a,
    history: [{ ...historyEntry(a.created_at, a, 'open', null), case_id: a.case_id }],
  }));
  return sql`
    nc AS (
      SELECT x.*,
             row_number() OVER (PARTITION BY x.client_id, x.year ORDER BY x.pos) AS k_year,
             row_number() OVER (PARTITION BY x.client_id ORDER BY x.pos) AS k_client
        FROM json_to_recordset(${JSON.stringify(caseRows)}::json) AS x(pos integer, id uuid, client_id text,
             year integer, reason text, is_str boolean, rule_ids text[], evaluation_id uuid,
             due_at timestamptz, created_at timestamptz, history jsonb, alert_id uuid)
       WHERE ${live('x.alert_id')}
    ), cnt AS (
      SELECT client_id, year, count(*)::integer AS n FROM nc GROUP BY client_id, year
    ), ctr AS (
      -- Counter rows are locked in one global order, so two concurrent batches cannot deadlock.
      INSERT INTO case_counters (client_id, year, last_seq)
      SELECT client_id, year, n FROM cnt ORDER BY client_id, year
      ON CONFLICT (client_id, year) DO UPDATE SET last_seq = case_counters.last_seq + excluded.last_seq
      RETURNING client_id, year, last_seq
    ), officers AS MATERIALIZED (
      -- Key-share locked: an officer being removed is waited for and then skipped, never given a
      -- case that its removal (which hands its open cases on) would not see.
      SELECT client_id, officer, open_cases FROM compliance_officers
       WHERE client_id IN (SELECT client_id FROM nc)
       FOR KEY SHARE
    ), slots AS (
      SELECT o.client_id, o.officer,
             row_number() OVER (PARTITION BY o.client_id
                                ORDER BY o.open_cases + g.i, o.officer COLLATE "C") AS k
        FROM officers o
        JOIN (SELECT client_id, count(*)::integer AS n FROM nc GROUP BY client_id) per ON per.client_id = o.client_id
       CROSS JOIN LATERAL generate_series(0, per.n - 1) AS g(i)
    ), new_cases AS (
      INSERT INTO cases (id, client_id, case_number, status, reason, is_str, assignee, opened_assignee, rule_ids,
                         evaluation_id, due_at, created_at, updated_at, history)
      SELECT nc.id, nc.client_id, ${sql.raw(CASE_NUMBER_SQL)}, 'open', nc.reason, nc.is_str, s.officer, s.officer,
             nc.rule_ids, nc.evaluation_id, nc.due_at, nc.created_at, nc.created_at, nc.history
        FROM nc
        JOIN cnt ON cnt.client_id = nc.client_id AND cnt.year = nc.year
        JOIN ctr ON ctr.client_id = nc.client_id AND ctr.year = nc.year
        LEFT JOIN slots s ON s.client_id = nc.client_id AND s.k = nc.k_client
       ORDER BY nc.pos
      RETURNING id, case_number, assignee
    ), new_alerts AS (
      INSERT INTO alerts (id, client_id, status, severity, source, event, vendor_object_id, customer_id,
                          transaction_id, evaluation_id, case_id, rule_ids, due_at, created_at, updated_at,
                          payload, headers, history)
      SELECT id, client_id, 'open', severity, source, event, vendor_object_id, customer_id, transaction_id,
             evaluation_id, case_id, rule_ids, due_at, created_at, created_at, payload::json, headers, history
        FROM json_to_recordset(${JSON.stringify(alertRows)}::json) AS x(id uuid, client_id text,
             severity text, source text, event text, vendor_object_id text, customer_id text,
             transaction_id text, evaluation_id uuid, case_id uuid, rule_ids text[], due_at timestamptz,
             created_at timestamptz, payload text, headers jsonb, history jsonb)
       WHERE ${live('x.id')}
    )`;
}

/** Opens cases and alerts inside the caller's transaction, in one statement; returns the cases' numbers and assignees. */
export async function insertFollowUps(trx: Db, cases: NewCase[], alerts: NewAlert[]): Promise<OpenedCase[]> {
  if (cases.length === 0 && alerts.length === 0) return [];
  const res = await sql<OpenedCase>`
    WITH ${followUpCtes(cases, alerts)}
    SELECT id::text AS id, case_number, assignee FROM new_cases`.execute(trx);
  const byId = new Map(res.rows.map((r) => [r.id, r]));
  return cases.map((c) => byId.get(c.id)!);
}
