import { sql } from 'kysely';
import { GENESIS, leafHash, linkHash } from '../domain/audit/chain.ts';
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

const COLUMNS = [...SCALARS, 'request', 'response', 'chain_seq', 'prev_hash', 'row_hash'].join(', ');

interface Link {
  seq: number;
  prev: Buffer;
  hash: Buffer;
}

/**
 * Builds the batch parameter as JSON text by concatenation: request and response are already JSON,
 * so they are embedded as they are rather than parsed and stringified again.
 */
function batchJson(records: EvaluationRecord[], links: Link[]): string {
  const parts: string[] = [];
  records.forEach((r, i) => {
    const link = links[i]!;
    let s = '{';
    for (const k of SCALARS) s += `${JSON.stringify(k)}:${JSON.stringify(r[k])},`;
    s += `"chain_seq":${link.seq},"prev_hex":"${link.prev.toString('hex')}","row_hex":"${link.hash.toString('hex')}",`;
    s += `"request":${r.requestJson},"response":${r.responseJson}}`;
    parts.push(s);
  });
  return `[${parts.join(',')}]`;
}

/**
 * Locks the chain heads of the batch's clients (in a fixed order: no deadlocks between batches),
 * links every record to its predecessor, and returns the links and the new heads. Writers of
 * different clients never wait for each other; writers of one client take turns per batch.
 */
async function linkRecords(trx: Db, records: EvaluationRecord[]) {
  const clients = [...new Set(records.map((r) => r.client_id))].sort();
  const lockHeads = () =>
    sql<{ client_id: string; seq: string | number; head: Uint8Array }>`
      SELECT client_id, seq, head FROM audit_chain_heads
       WHERE client_id = ANY(${clients}::text[]) ORDER BY client_id FOR UPDATE`.execute(trx);
  let heads = (await lockHeads()).rows;
  if (heads.length < clients.length) {
    await sql`INSERT INTO audit_chain_heads (client_id, seq, head)
              SELECT c, 0, ${GENESIS} FROM unnest(${clients}::text[]) AS c
              ON CONFLICT (client_id) DO NOTHING`.execute(trx);
    heads = (await lockHeads()).rows;
  }
  const state = new Map<string, { seq: number; hash: Buffer }>(
    heads.map((h) => [h.client_id, { seq: Number(h.seq), hash: Buffer.from(h.head) }]),
  );
  const links: Link[] = records.map((r) => {
    const head = state.get(r.client_id)!;
    const seq = head.seq + 1;
    const leaf = leafHash({
      ...r,
      chain_seq: seq,
      request: r.requestJson,
      response: r.responseJson,
    });
    const hash = linkHash(head.hash, leaf);
    const link = { seq, prev: head.hash, hash };
    state.set(r.client_id, { seq, hash });
    return link;
  });
  const newHeads = [...state].map(([client_id, h]) => ({
    client_id,
    seq: h.seq,
    head: h.hash.toString('hex'),
  }));
  return { links, newHeads };
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

/**
 * Links the batch into the chains, then writes it in one statement: data-modifying CTEs always
 * run, so the evaluations, the window rows and the chain heads commit together.
 */
async function insertEvaluations(db: Db, records: EvaluationRecord[]): Promise<void> {
  const { links, newHeads } = await linkRecords(db, records);
  await sql`
    WITH batch AS (
      SELECT evaluation_id, client_id, trigger_type, trigger_entity_type, trigger_entity_id, customer_id,
             evaluated_at, rule_set_version, high_risk_list_date, evaluator_id, rules_evaluated,
             rules_triggered, transaction_blocked, alert_generated, case_created, highest_severity, rule_ids,
             request, response, chain_seq, decode(prev_hex, 'hex') AS prev_hash, decode(row_hex, 'hex') AS row_hash
        FROM json_to_recordset(${batchJson(records, links)}::json) AS x(
        evaluation_id uuid, client_id text, trigger_type text, trigger_entity_type text,
        trigger_entity_id text, customer_id text, evaluated_at timestamptz, rule_set_version text,
        high_risk_list_date text, evaluator_id text, rules_evaluated integer, rules_triggered integer,
        transaction_blocked boolean, alert_generated boolean, case_created boolean,
        highest_severity text, rule_ids text[], request json, response json,
        chain_seq bigint, prev_hex text, row_hex text)
    ), heads AS (
      UPDATE audit_chain_heads h SET seq = n.seq, head = decode(n.head, 'hex'), updated_at = now()
        FROM json_to_recordset(${JSON.stringify(newHeads)}::json) AS n(client_id text, seq bigint, head text)
       WHERE h.client_id = n.client_id
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
     * in one transaction: lock the chain heads, one insert statement, then any follow-ups.
     */
    async insertBatch(records: EvaluationRecord[]): Promise<void> {
      const cases = records.flatMap((r) => (r.followUps?.case ? [r.followUps.case] : []));
      const alerts = records.flatMap((r) => (r.followUps?.alert ? [r.followUps.alert] : []));
      await db.transaction().execute(async (trx) => {
        await insertEvaluations(trx, records);
        if (cases.length > 0 || alerts.length > 0) await insertFollowUps(trx, cases, alerts);
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
