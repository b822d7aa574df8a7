import { sql } from 'kysely';
import { type OfficerLoad, pickOfficer } from '../domain/cases/assignment.ts';
import { formatCaseNumber } from '../domain/cases/case-number.ts';
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
  payload: unknown;
  headers: Record<string, string> | null;
  actor: string;
}

export interface OpenedCase {
  id: string;
  case_number: string;
  assignee: string | null;
}

/**
 * Takes `count` case numbers for a client and year, and reads the client's officers with their
 * open-case counts (kept by triggers on cases, migration 008), in one round trip. The counter row
 * is locked until the transaction ends, so numbers are unique and, since a rollback undoes the
 * increment, gap-free.
 */
async function reserveNumbers(
  trx: Db,
  clientId: string,
  year: number,
  count: number,
): Promise<{ first: number; load: OfficerLoad[] }> {
  const res = await sql<{ last_seq: number; officer: string | null; open_cases: number | null }>`
    WITH ctr AS (
      INSERT INTO case_counters (client_id, year, last_seq) VALUES (${clientId}, ${year}, ${count})
      ON CONFLICT (client_id, year) DO UPDATE SET last_seq = case_counters.last_seq + ${count}
      RETURNING last_seq)
    SELECT ctr.last_seq, o.officer, o.open_cases
      FROM ctr LEFT JOIN compliance_officers o ON o.client_id = ${clientId}`.execute(trx);
  const first = Number(res.rows[0]!.last_seq) - count + 1;
  const load = res.rows.flatMap((r) =>
    r.officer === null ? [] : [{ name: r.officer, openCases: Number(r.open_cases) }],
  );
  return { first, load };
}

/** Next officer by the fewest-open-cases rule, counting the cases handed out in this batch. */
function takeOfficer(load: OfficerLoad[]): string | null {
  const best = pickOfficer(load);
  if (!best) return null;
  best.openCases++;
  return best.name;
}

/** Opens cases and alerts inside the caller's transaction; a batch costs a few statements, not a few per row. */
export async function insertFollowUps(trx: Db, cases: NewCase[], alerts: NewAlert[]): Promise<OpenedCase[]> {
  const opened: OpenedCase[] = [];
  const caseRows: object[] = [];
  const byClientYear = new Map<string, NewCase[]>();
  for (const c of cases) {
    const key = `${c.client_id}\u0000${new Date(c.created_at).getUTCFullYear()}`;
    const list = byClientYear.get(key) ?? [];
    list.push(c);
    byClientYear.set(key, list);
  }
  const loads = new Map<string, OfficerLoad[]>();
  // Counter rows are locked in one global order, so two concurrent batches cannot deadlock.
  for (const key of [...byClientYear.keys()].sort()) {
    const list = byClientYear.get(key)!;
    const [clientId, yearText] = key.split('\u0000') as [string, string];
    const year = Number(yearText);
    const reserved = await reserveNumbers(trx, clientId, year, list.length);
    const first = reserved.first;
    // A batch spanning New Year reserves twice; the load of the first read counts its own cases.
    let load = loads.get(clientId);
    if (!load) {
      load = reserved.load;
      loads.set(clientId, load);
    }
    list.forEach((c, i) => {
      const case_number = formatCaseNumber(year, first + i);
      const assignee = takeOfficer(load);
      opened.push({ id: c.id, case_number, assignee });
      caseRows.push({
        ...c,
        case_number,
        assignee,
        status: 'open',
        updated_at: c.created_at,
        history: [{ at: c.created_at, actor: c.actor, from: null, to: 'open', note: c.reason }],
      });
    });
  }
  const alertRows = alerts.map((a) => ({
    ...a,
    status: 'open',
    updated_at: a.created_at,
    history: [{ at: a.created_at, actor: a.actor, from: null, to: 'open', note: null }],
  }));
  // Cases and alerts go in one statement (a round trip less per batch); the alerts' foreign keys
  // to the cases are checked at the end of the statement, when both are in.
  if (caseRows.length > 0 || alertRows.length > 0)
    await sql`
      WITH new_cases AS (
        INSERT INTO cases (id, client_id, case_number, status, reason, is_str, assignee, rule_ids, evaluation_id,
                           due_at, created_at, updated_at, history)
        SELECT id, client_id, case_number, status, reason, is_str, assignee, rule_ids, evaluation_id,
               due_at, created_at, updated_at, history
          FROM json_to_recordset(${JSON.stringify(caseRows)}::json) AS x(id uuid, client_id text, case_number text,
               status text, reason text, is_str boolean, assignee text, rule_ids text[], evaluation_id uuid,
               due_at timestamptz, created_at timestamptz, updated_at timestamptz, history jsonb)
      )
      INSERT INTO alerts (id, client_id, status, severity, source, event, vendor_object_id, customer_id,
                          transaction_id, evaluation_id, case_id, rule_ids, due_at, created_at, updated_at,
                          payload, headers, history)
      SELECT id, client_id, status, severity, source, event, vendor_object_id, customer_id, transaction_id,
             evaluation_id, case_id, rule_ids, due_at, created_at, updated_at, payload, headers, history
        FROM json_to_recordset(${JSON.stringify(alertRows)}::json) AS x(id uuid, client_id text, status text,
             severity text, source text, event text, vendor_object_id text, customer_id text,
             transaction_id text, evaluation_id uuid, case_id uuid, rule_ids text[], due_at timestamptz,
             created_at timestamptz, updated_at timestamptz, payload jsonb, headers jsonb, history jsonb)`.execute(
      trx,
    );
  return opened;
}
