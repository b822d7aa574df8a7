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

type Heads = Map<string, { seq: number; hash: Buffer }>;

/**
 * The chain heads of the batch's clients, locked until the transaction ends (in a fixed order, so
 * batches cannot deadlock). Writers of different clients never wait for each other; writers of one
 * client take turns per batch.
 */
async function lockHeads(trx: Db, clients: string[]): Promise<Heads> {
  const select = () =>
    sql<{ client_id: string; seq: string | number; head: Uint8Array }>`
      SELECT client_id, seq, head FROM audit_chain_heads
       WHERE client_id = ANY(${clients}::text[]) ORDER BY client_id FOR UPDATE`.execute(trx);
  let rows = (await select()).rows;
  if (rows.length < clients.length) {
    // A client's first batch creates its head row; a concurrent first batch waits on that insert
    // and then locks the same row, so two batches can never both start from the genesis.
    await sql`INSERT INTO audit_chain_heads (client_id, seq, head)
              SELECT c, 0, ${GENESIS} FROM unnest(${clients}::text[]) AS c ORDER BY c
              ON CONFLICT (client_id) DO NOTHING`.execute(trx);
    rows = (await select()).rows;
  }
  return new Map(rows.map((h) => [h.client_id, { seq: Number(h.seq), hash: Buffer.from(h.head) }]));
}

/** Links every record to its predecessor in its client's chain; returns the links and new heads. */
function linkRecords(heads: Heads, records: EvaluationRecord[]) {
  const state: Heads = new Map();
  const links: Link[] = records.map((r) => {
    const head = state.get(r.client_id) ?? heads.get(r.client_id)!;
    const seq = head.seq + 1;
    const hash = linkHash(
      head.hash,
      leafHash({ ...r, chain_seq: seq, request: r.requestJson, response: r.responseJson }),
    );
    state.set(r.client_id, { seq, hash });
    return { seq, prev: head.hash, hash };
  });
  return { links, newHeads: state };
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
 * Writes a linked batch in one statement: data-modifying CTEs always run, so the evaluations, the
 * window rows and the new chain heads commit together (or not at all).
 */
async function insertEvaluations(
  db: Db,
  records: EvaluationRecord[],
  links: Link[],
  newHeads: Heads,
): Promise<void> {
  const headsJson = JSON.stringify(
    [...newHeads].map(([client_id, h]) => ({ client_id, seq: h.seq, head: h.hash.toString('hex') })),
  );
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
      INSERT INTO audit_chain_heads (client_id, seq, head)
      SELECT client_id, seq, decode(head, 'hex') FROM json_to_recordset(${headsJson}::json)
          AS n(client_id text, seq bigint, head text)
      ON CONFLICT (client_id) DO UPDATE SET seq = excluded.seq, head = excluded.head, updated_at = now()
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

/**
 * SQL of the evaluation audit store. `exclusive`: this process is the store's only writer (the
 * embedded store admits one process), so chain heads are kept in memory instead of being locked
 * and read for every batch, and a batch without follow-ups is a single statement.
 */
export function createEvaluationsRepo(db: Db, opts: { exclusive?: boolean } = {}) {
  const cachedHeads: Heads = new Map();

  async function headsFor(clients: string[]): Promise<Heads> {
    const missing = clients.filter((c) => !cachedHeads.has(c));
    if (missing.length > 0) for (const [c, h] of await lockHeads(db, missing)) cachedHeads.set(c, h);
    return cachedHeads;
  }

  return {
    /**
     * Writes a batch of evaluations, their window transactions, the chain links and the cases and
     * alerts they open, atomically.
     */
    async insertBatch(records: EvaluationRecord[]): Promise<void> {
      const cases = records.flatMap((r) => (r.followUps?.case ? [r.followUps.case] : []));
      const alerts = records.flatMap((r) => (r.followUps?.alert ? [r.followUps.alert] : []));
      const clients = [...new Set(records.map((r) => r.client_id))].sort();
      if (opts.exclusive) {
        const { links, newHeads } = linkRecords(await headsFor(clients), records);
        if (cases.length === 0 && alerts.length === 0) await insertEvaluations(db, records, links, newHeads);
        else
          await db.transaction().execute(async (trx) => {
            await insertEvaluations(trx, records, links, newHeads);
            await insertFollowUps(trx, cases, alerts);
          });
        // Only a committed batch moves the heads; a failed one leaves them for the retry.
        for (const [c, h] of newHeads) cachedHeads.set(c, h);
        return;
      }
      await db.transaction().execute(async (trx) => {
        const { links, newHeads } = linkRecords(await lockHeads(trx, clients), records);
        await insertEvaluations(trx, records, links, newHeads);
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

    /** Every window transaction since a time (to load the in-memory window of a single-writer store). */
    async windowTransactions(since: Date) {
      const rows = await db
        .selectFrom('customer_transactions')
        .selectAll()
        .where('evaluated_at', '>', since)
        .execute();
      return rows.map((r) => ({
        ...r,
        amount_eur: Number(r.amount_eur),
        evaluated_at: new Date(r.evaluated_at),
      }));
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
