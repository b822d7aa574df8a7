import { sql } from 'kysely';
import type { Db } from './db.ts';
import { insertFollowUps, type NewAlert, type NewCase } from './follow-ups.repo.ts';

/** One evaluation as stored: scalar columns plus the request and response JSON texts, verbatim. */
export interface EvaluationRecord {
  evaluation_id: string;
  client_id: string;
  trigger_type: string;
  trigger_entity_type: string | null;
  trigger_entity_id: string | null;
  customer_id: string | null;
  evaluated_at: string;
  rule_set_version: string;
  high_risk_list_date: string | null;
  evaluator_id: string;
  rules_evaluated: number;
  rules_triggered: number;
  transaction_blocked: boolean;
  alert_generated: boolean;
  case_created: boolean;
  highest_severity: string | null;
  rule_ids: string[];
  /** Valid JSON text (what was received, re-serialised after parsing). */
  requestJson: string;
  /** Valid JSON text, exactly the bytes answered. */
  responseJson: string;
  /** The transaction to count in the customer's rolling window, when there is one. */
  customerTransaction?: { transaction_id: string; customer_id: string; amount_eur: number; blocked: boolean };
  /** The case and alert this evaluation opens, committed in the same transaction as its audit record. */
  followUps?: { case?: NewCase; alert?: NewAlert };
}

const SCALARS = [
  'evaluation_id',
  'client_id',
  'trigger_type',
  'trigger_entity_type',
  'trigger_entity_id',
  'customer_id',
  'evaluated_at',
  'rule_set_version',
  'high_risk_list_date',
  'evaluator_id',
  'rules_evaluated',
  'rules_triggered',
  'transaction_blocked',
  'alert_generated',
  'case_created',
  'highest_severity',
  'rule_ids',
] as const;

const COLUMNS = [...SCALARS, 'request', 'response'].join(', ');

/**
 * Builds the batch parameter as JSON text by concatenation: request and response are already JSON,
 * so they are embedded as they are rather than parsed and stringified again.
 */
function batchJson(records: EvaluationRecord[]): string {
  const parts: string[] = [];
  for (const r of records) {
    let s = '{';
    for (const k of SCALARS) s += `${JSON.stringify(k)}:${JSON.stringify(r[k])},`;
    s += `"request":${r.requestJson},"response":${r.responseJson}}`;
    parts.push(s);
  }
  return `[${parts.join(',')}]`;
}

/** The last write of a transaction id wins within a batch, as it would across batches. */
function transactionsJson(records: EvaluationRecord[]): string {
  const byKey = new Map<string, object>();
  for (const r of records) {
    const t = r.customerTransaction;
    if (!t) continue;
    byKey.set(`${r.client_id}\u0000${t.transaction_id}`, {
      client_id: r.client_id,
      evaluated_at: r.evaluated_at,
      ...t,
    });
  }
  return JSON.stringify([...byKey.values()]);
}

/** The batch as one statement: a data-modifying CTE always runs, so both tables commit together. */
async function insertEvaluations(db: Db, records: EvaluationRecord[]): Promise<void> {
  await sql`
    WITH batch AS (
      SELECT * FROM json_to_recordset(${batchJson(records)}::json) AS x(
        evaluation_id uuid, client_id text, trigger_type text, trigger_entity_type text,
        trigger_entity_id text, customer_id text, evaluated_at timestamptz, rule_set_version text,
        high_risk_list_date text, evaluator_id text, rules_evaluated integer, rules_triggered integer,
        transaction_blocked boolean, alert_generated boolean, case_created boolean,
        highest_severity text, rule_ids text[], request json, response json)
    ), inserted AS (
      -- A data-modifying CTE always runs, so the evaluations and the window rows commit together.
      INSERT INTO evaluations (${sql.raw(COLUMNS)}) SELECT ${sql.raw(COLUMNS)} FROM batch
    )
    INSERT INTO customer_transactions (client_id, transaction_id, customer_id, amount_eur, evaluated_at, blocked)
    SELECT client_id, transaction_id, customer_id, amount_eur, evaluated_at, blocked
      FROM json_to_recordset(${transactionsJson(records)}::json) AS t(client_id text, transaction_id text,
        customer_id text, amount_eur double precision, evaluated_at timestamptz, blocked boolean)
    ON CONFLICT (client_id, transaction_id) DO UPDATE
      SET customer_id = excluded.customer_id, amount_eur = excluded.amount_eur,
          evaluated_at = excluded.evaluated_at, blocked = excluded.blocked
  `.execute(db);
}

/** SQL of the evaluation audit store. */
export function createEvaluationsRepo(db: Db) {
  return {
    /**
     * Writes a batch of evaluations, their window transactions and the cases and alerts they open,
     * atomically. Without follow-ups the whole batch is one statement (one round trip).
     */
    async insertBatch(records: EvaluationRecord[]): Promise<void> {
      const cases = records.flatMap((r) => (r.followUps?.case ? [r.followUps.case] : []));
      const alerts = records.flatMap((r) => (r.followUps?.alert ? [r.followUps.alert] : []));
      if (cases.length === 0 && alerts.length === 0) return insertEvaluations(db, records);
      await db.transaction().execute(async (trx) => {
        await insertEvaluations(trx, records);
        await insertFollowUps(trx, cases, alerts);
      });
    },

    /** Sum of the customer's non-blocked transactions since `since`, leaving out one transaction id. */
    async windowSum(clientId: string, customerId: string, since: Date, excludeTransactionId: string) {
      const row = await db
        .selectFrom('customer_transactions')
        .select(sql<number>`coalesce(sum(amount_eur), 0)`.as('total'))
        .where('client_id', '=', clientId)
        .where('customer_id', '=', customerId)
        .where('evaluated_at', '>', since)
        .where('transaction_id', '<>', excludeTransactionId)
        .where('blocked', '=', false)
        .executeTakeFirstOrThrow();
      return Number(row.total);
    },

    /** The stored response of one evaluation, only within the caller's client. */
    async responseOf(clientId: string, evaluationId: string): Promise<unknown | undefined> {
      const row = await db
        .selectFrom('evaluations')
        .select('response')
        .where('client_id', '=', clientId)
        .where('evaluation_id', '=', evaluationId)
        .executeTakeFirst();
      return row?.response;
    },
  };
}
export type EvaluationsRepo = ReturnType<typeof createEvaluationsRepo>;
