import { isDeepStrictEqual } from 'node:util';
import { CompiledQuery, type RawBuilder, sql } from 'kysely';
import { type ChainedFields, GENESIS, leafHash, linkHash } from '../domain/audit/chain.ts';
import type { DatabaseHandle, Db } from './db.ts';
import { followUpCtes, type NewAlert, type NewCase } from './follow-ups.repo.ts';
import { isTransientConflict } from './store-errors.ts';

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

/** One rolling-window lookup: the customer's sum since a time, leaving out one transaction id. */
export interface WindowLookup {
  client_id: string;
  customer_id: string;
  since: Date;
  exclude: string;
}

type Heads = Map<string, { seq: number; hash: Buffer }>;

/**
 * The chain heads of some clients as stored now. A client's first batch creates its head row at the
 * genesis (a concurrent first batch of another instance finds it and links after it).
 */
async function readHeads(db: Db, clients: string[]): Promise<Heads> {
  const select = () =>
    sql<{ client_id: string; seq: string | number; head: Uint8Array }>`
      SELECT client_id, seq, head FROM audit_chain_heads WHERE client_id = ANY(${clients}::text[])`.execute(
      db,
    );
  let rows = (await select()).rows;
  if (rows.length < clients.length) {
    await sql`INSERT INTO audit_chain_heads (client_id, seq, head)
              SELECT c, 0, ${GENESIS} FROM unnest(${clients}::text[]) AS c ORDER BY c
              ON CONFLICT (client_id) DO NOTHING`.execute(db);
    rows = (await select()).rows;
  }
  return new Map(rows.map((h) => [h.client_id, { seq: Number(h.seq), hash: Buffer.from(h.head) }]));
}

/**
 * The fields a record's leaf covers, listed one by one: a spread of the record (two dozen fields,
 * three added) made an object in dictionary mode, 14 µs to build and 3-4 times slower to read in
 * canonicalHeader, about 25 µs per evaluation on the 2-core machine (micro-benchmark).
 */
function chainedFields(r: EvaluationRecord, seq: number): ChainedFields {
  return {
    client_id: r.client_id,
    chain_seq: seq,
    evaluation_id: r.evaluation_id,
    evaluated_at: r.evaluated_at,
    trigger_type: r.trigger_type,
    trigger_entity_type: r.trigger_entity_type,
    trigger_entity_id: r.trigger_entity_id,
    customer_id: r.customer_id,
    rule_set_version: r.rule_set_version,
    high_risk_list_date: r.high_risk_list_date,
    evaluator_id: r.evaluator_id,
    rules_evaluated: r.rules_evaluated,
    rules_triggered: r.rules_triggered,
    transaction_blocked: r.transaction_blocked,
    alert_generated: r.alert_generated,
    case_created: r.case_created,
    highest_severity: r.highest_severity,
    rule_ids: r.rule_ids,
    request: r.requestJson,
    response: r.responseJson,
  };
}

/** Links every record to its predecessor in its client's chain; returns the links and new heads. */
function linkRecords(heads: Heads, records: EvaluationRecord[]) {
  const state: Heads = new Map();
  const links: Link[] = records.map((r) => {
    const head = state.get(r.client_id) ?? heads.get(r.client_id)!;
    const seq = head.seq + 1;
    const hash = linkHash(head.hash, leafHash(chainedFields(r, seq)));
    state.set(r.client_id, { seq, hash });
    return { seq, prev: head.hash, hash };
  });
  return { links, newHeads: state };
}

type WindowRow = NonNullable<EvaluationRecord['customerTransaction']> & {
  client_id: string;
  evaluated_at: string;
};

/** The window rows of a batch; the last write of a transaction id wins, as it would across batches. */
function windowRows(records: EvaluationRecord[]): WindowRow[] {
  const byKey = new Map<string, WindowRow>();
  for (const r of records) {
    const t = r.customerTransaction;
    if (!t) continue;
    byKey.set(`${r.client_id}\u0000${t.transaction_id}`, {
      client_id: r.client_id,
      evaluated_at: r.evaluated_at,
      ...t,
    });
  }
  return [...byKey.values()];
}

/** The columns of a window row, in the order both audit statements give them. */
const WINDOW_COLUMNS = sql.raw('client_id, transaction_id, customer_id, amount_eur, evaluated_at, blocked');

/** The window row of a record (CDD-002's rolling sum), upserted: a re-evaluated transaction replaces its amount. */
const WINDOW_UPSERT = sql`ON CONFLICT (client_id, transaction_id) DO UPDATE
        SET customer_id = excluded.customer_id, amount_eur = excluded.amount_eur,
            evaluated_at = excluded.evaluated_at, blocked = excluded.blocked`;

/** The chain heads a batch moves, as the batch statement takes them (one JSON parameter). */
function headsJson(from: Heads, to: Heads): string {
  return JSON.stringify(
    [...to].map(([client_id, h]) => ({
      client_id,
      seq: h.seq,
      head: h.hash.toString('hex'),
      prev_seq: from.get(client_id)!.seq,
      prev_head: from.get(client_id)!.hash.toString('hex'),
    })),
  );
}

/** SQL types of a row's parameters, in rowValues' order (the two hashes are hex text, decoded in SQL). */
const ROW_TYPES = [
  'uuid',
  'text',
  'text',
  'text',
  'text',
  'text',
  'timestamptz',
  'text',
  'text',
  'text',
  'integer',
  'integer',
  'boolean',
  'boolean',
  'boolean',
  'text',
  'text[]',
  'json',
  'json',
  'bigint',
  'text',
  'text',
].map((t) => sql.raw(t));

/** SQL types of a window row's parameters, in windowValues' order. */
const WINDOW_TYPES = ['text', 'text', 'text', 'double precision', 'timestamptz', 'boolean'].map((t) =>
  sql.raw(t),
);

/** `slots` rows of typed parameters: the values given, then rows of NULLs (filtered out by the caller). */
function slotRows(values: unknown[][], slots: number, types: RawBuilder<unknown>[], hexTail: number) {
  const empty = types.map(() => null);
  return sql.join(
    Array.from({ length: slots }, (_, i) => {
      const row = values[i] ?? empty;
      return sql`(${sql.join(
        row.map((v, j) =>
          j >= row.length - hexTail ? sql`decode(${v}::text, 'hex')` : sql`${v}::${types[j]!}`,
        ),
      )})`;
    }),
  );
}

/**
 * A batch of several evaluations as one statement, every client's head moved only from the link
 * the batch was computed on. The rows and window rows go either as JSON recordsets or, with
 * `slots`, as that many rows of parameters (see slotsQuery).
 */
function batchStatement(
  records: EvaluationRecord[],
  links: Link[],
  from: Heads,
  to: Heads,
  followUps: RawBuilder<unknown>,
  slots?: number,
) {
  const heads = headsJson(from, to);
  const batch = slots
    ? sql`
      SELECT * FROM (VALUES ${slotRows(rowValues(records, links), slots, ROW_TYPES, 2)})
          AS x(${sql.raw(COLUMNS)})
       WHERE x.evaluation_id IS NOT NULL`
    : sql`
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
        chain_seq bigint, prev_hex text, row_hex text)`;
  const window = slots
    ? sql`
      SELECT * FROM (VALUES ${slotRows(windowValues(records), slots, WINDOW_TYPES, 0)})
          AS t(${WINDOW_COLUMNS})
       WHERE t.transaction_id IS NOT NULL`
    : sql`
      SELECT ${WINDOW_COLUMNS}
        FROM json_to_recordset(${JSON.stringify(windowRows(records))}::json) AS t(client_id text, transaction_id text,
          customer_id text, amount_eur double precision, evaluated_at timestamptz, blocked boolean)`;
  return sql`
    WITH batch AS (${batch}
    ), locked AS (
      -- Heads are locked first and in one order, so batches in flight together queue here.
      SELECT client_id FROM audit_chain_heads WHERE client_id = ANY(${[...to.keys()]}::text[])
       ORDER BY client_id FOR UPDATE
    ), heads AS (
      -- Matches every head row, so a head locked by a batch in flight is waited for and then read
      -- as that batch committed it; it moves only if it is where this batch was linked.
      UPDATE audit_chain_heads h
         SET seq = CASE WHEN h.seq = n.prev_seq AND h.head = decode(n.prev_head, 'hex') THEN n.seq ELSE h.seq END,
             head = CASE WHEN h.seq = n.prev_seq AND h.head = decode(n.prev_head, 'hex')
                         THEN decode(n.head, 'hex') ELSE h.head END,
             updated_at = now()
        FROM json_to_recordset(${heads}::json)
          AS n(client_id text, seq bigint, head text, prev_seq bigint, prev_head text)
       WHERE h.client_id = n.client_id
      RETURNING h.seq = n.seq AND h.head = decode(n.head, 'hex') AS linked
    ), inserted AS (
      INSERT INTO evaluations (${sql.raw(COLUMNS)}) SELECT ${sql.raw(COLUMNS)} FROM batch
    ), window_rows AS (
      INSERT INTO customer_transactions (${WINDOW_COLUMNS})${window}
      ${WINDOW_UPSERT}
    )${followUps}
    -- The locks are taken first (the left operand's subquery runs first), then the heads are moved;
    -- the rows, window and follow-ups are written after the main query.
    SELECT mica_expect_chain_heads(
      (SELECT count(*) * 0 FROM locked) + (SELECT count(*) FROM heads WHERE linked), ${to.size}::integer
    ) AS linked
  `;
}

/** The most one transaction adds to a window sum (see windowSums): 10^300 × 10^8 rows stays finite. */
const CAPPED_AMOUNT = sql.raw('1e300::double precision');

/** Batches of up to this many evaluations of one client go as rows of parameters (see rowsStatement). */
const MAX_ROWS = 8;

/** The parameters of the rows statement, in the order its text takes them. */
function rowsParameters(
  records: EvaluationRecord[],
  links: Link[],
  from: { seq: number; hash: Buffer },
  to: { seq: number; hash: Buffer },
) {
  return {
    head: [to.seq, to.hash.toString('hex'), records[0]!.client_id, from.seq, from.hash.toString('hex')],
    rows: rowValues(records, links),
    window: windowValues(records),
  };
}

/** Each record's values in the order of COLUMNS (the two hashes as hex). */
function rowValues(records: EvaluationRecord[], links: Link[]): unknown[][] {
  return records.map((r, i) => {
    const link = links[i]!;
    const values: unknown[] = SCALARS.map((k) => r[k]);
    values.push(
      r.requestJson,
      r.responseJson,
      link.seq,
      link.prev.toString('hex'),
      link.hash.toString('hex'),
    );
    return values;
  });
}

/** The batch's window rows' values in the order of WINDOW_COLUMNS. */
function windowValues(records: EvaluationRecord[]): unknown[][] {
  return windowRows(records).map((t) => [
    t.client_id,
    t.transaction_id,
    t.customer_id,
    t.amount_eur,
    t.evaluated_at,
    t.blocked,
  ]);
}
type RowsParameters = ReturnType<typeof rowsParameters>;

/**
 * A few evaluations of one client, which is what a batch holds whenever the service is not
 * saturated: their values as rows of parameters, and the client's head moved by a conditional
 * UPDATE of its one row (a single lock, so no lock order to keep). Cheaper in the engine than the
 * JSON recordsets of the batch statement: 1, 2 and 3 evaluations took 0.54, 1.02 and 1.11 ms
 * against 0.87, 1.31 and 1.57 ms (embedded store, medians of five interleaved rounds). Each row
 * count is a statement text of its own, prepared once per session, hence the limit.
 * Same guarantee as the batch statement: if the head is not at the link these records were
 * computed on (another instance moved it; the UPDATE waits for such a writer and then finds no
 * matching row), the statement fails and nothing of it stays.
 */
function rowsStatement(p: RowsParameters, followUps: RawBuilder<unknown>) {
  const [seq, head, client, fromSeq, fromHead] = p.head;
  const windowCte =
    p.window.length > 0
      ? sql`, window_rows AS (
      INSERT INTO customer_transactions (${WINDOW_COLUMNS})
      VALUES ${sql.join(p.window.map((w) => sql`(${sql.join(w)})`))}
      ${WINDOW_UPSERT}
    )`
      : sql``;
  const rows = p.rows.map(
    (values) =>
      sql`(${sql.join(values.slice(0, -2))}, decode(${values.at(-2)}, 'hex'), decode(${values.at(-1)}, 'hex'))`,
  );
  return sql`
    WITH heads AS (
      UPDATE audit_chain_heads
         SET seq = ${seq}, head = decode(${head}, 'hex'), updated_at = now()
       WHERE client_id = ${client} AND seq = ${fromSeq} AND head = decode(${fromHead}, 'hex')
      RETURNING 1
    ), inserted AS (
      INSERT INTO evaluations (${sql.raw(COLUMNS)}) VALUES ${sql.join(rows)}
    )${windowCte}${followUps}
    SELECT mica_expect_chain_heads((SELECT count(*) FROM heads), 1) AS linked
  `;
}

/**
 * The rows statement without follow-ups, from `texts` (by row and window-row count) once its shape
 * has been built through Kysely, with the parameters laid out directly: building and compiling the
 * statement per batch made ~12 KB of short-lived objects per evaluation at low load (sampled
 * allocations, 500 evaluations/s), a seventh of all, and a new text to hash for the statement name.
 */
function rowsQuery(db: Db, statementTexts: Map<string, string>, p: RowsParameters): CompiledQuery {
  const key = `${p.rows.length}:${p.window.length}`;
  const parameters = [...p.head, ...p.rows.flat(), ...p.window.flat()];
  let text = statementTexts.get(key);
  if (text === undefined) {
    const compiled = rowsStatement(p, sql``).compile(db);
    // The layout above must be the one the template compiles to, or rows would be written wrong.
    if (!isDeepStrictEqual(compiled.parameters, parameters))
      throw new Error('rows statement: parameters out of the order of its text');
    text = compiled.sql;
    statementTexts.set(key, text);
  }
  return CompiledQuery.raw(text, parameters);
}

/** Batches of more than MAX_ROWS and up to this many evaluations go as rows of parameters (see slotsQuery). */
const MAX_SLOTS = 512;

/** The slots of the statement for a batch of n: the next power of two, at least 16; none past MAX_SLOTS. */
export function slotsFor(n: number): number | undefined {
  if (n > MAX_SLOTS) return undefined;
  let slots = 16;
  while (slots < n) slots *= 2;
  return slots;
}

/**
 * A larger batch as the batch statement with its rows and window rows as `slots` rows of
 * parameters, the unused ones NULL and filtered out: the engine binds each value as it is instead
 * of parsing a JSON document of the whole batch to find them (the embedded engine spent ~45 µs
 * per evaluation on that alone, of some 65 for the insert). Rounding up to a power of two keeps
 * the texts to a handful (16 … 512 rows, with and without follow-ups), each prepared once per
 * session. The text is built through Kysely once per shape, then the parameters are laid out
 * directly, as rowsQuery does.
 */
function slotsQuery(
  db: Db,
  texts: Map<string, string>,
  batch: { records: EvaluationRecord[]; links: Link[]; from: Heads; to: Heads },
  slots: number,
  followUps: { cases: NewCase[]; alerts: NewAlert[] } | undefined,
): CompiledQuery {
  const { records, links, from, to } = batch;
  const followUpParameters = followUps
    ? sql`${followUpCtes(followUps.cases, followUps.alerts)}`.compile(db).parameters
    : [];
  const pad = (values: unknown[][], width: number) => {
    const flat = values.flat();
    return flat.concat(new Array<null>((slots - values.length) * width).fill(null));
  };
  const parameters = [
    ...pad(rowValues(records, links), ROW_TYPES.length),
    [...to.keys()],
    headsJson(from, to),
    ...pad(windowValues(records), WINDOW_TYPES.length),
    ...followUpParameters,
    to.size,
  ];
  const key = `slots:${slots}:${followUps ? 'f' : ''}`;
  let text = texts.get(key);
  if (text === undefined) {
    const compiled = batchStatement(
      records,
      links,
      from,
      to,
      followUps ? sql`, ${followUpCtes(followUps.cases, followUps.alerts)}` : sql``,
      slots,
    ).compile(db);
    // The layout above must be the one the template compiles to, or rows would be written wrong.
    if (!isDeepStrictEqual(compiled.parameters, parameters))
      throw new Error('slots statement: parameters out of the order of its text');
    text = compiled.sql;
    texts.set(key, text);
  }
  return CompiledQuery.raw(text, parameters);
}

/**
 * Writes a linked batch in one statement, so one round trip commits it: the evaluations, their
 * window rows, the cases and alerts they open, and the chain heads, which move only from the links
 * the batch was computed on (else the statement fails and nothing of it stays).
 */
async function writeBatch(
  database: Pick<DatabaseHandle, 'db' | 'executePrepared'>,
  statementTexts: Map<string, string>,
  records: EvaluationRecord[],
  links: Link[],
  from: Heads,
  to: Heads,
): Promise<void> {
  const cases = records.flatMap((r) => (r.followUps?.case ? [r.followUps.case] : []));
  const alerts = records.flatMap((r) => (r.followUps?.alert ? [r.followUps.alert] : []));
  const withFollowUps = cases.length > 0 || alerts.length > 0;
  // Built only for the statements compiled per batch (the slots statement lays out its own).
  const followUps = () => (withFollowUps ? sql`, ${followUpCtes(cases, alerts)}` : sql``);
  const client = records[0]!.client_id;
  const slots = records.length > MAX_ROWS ? slotsFor(records.length) : undefined;
  if (slots)
    await database.executePrepared(
      slotsQuery(
        database.db,
        statementTexts,
        { records, links, from, to },
        slots,
        withFollowUps ? { cases, alerts } : undefined,
      ),
    );
  else if (records.length <= MAX_ROWS && to.size === 1) {
    const p = rowsParameters(records, links, from.get(client)!, to.get(client)!);
    await database.executePrepared(
      withFollowUps
        ? rowsStatement(p, followUps()).compile(database.db)
        : rowsQuery(database.db, statementTexts, p),
    );
  } else
    await database.executePrepared(
      batchStatement(records, links, from, to, followUps()).compile(database.db),
    );
}

/** Attempts at a batch whose chain heads keep moving under it (other instances writing the same client). */
const MAX_ATTEMPTS = 20;

/**
 * SQL of the evaluation audit store. Chain heads are kept in memory and moved optimistically (see
 * writeBatch); a batch whose predecessor failed, or whose heads another instance moved, fails its
 * head check and is linked again to the heads read afresh. `inOrder`: the store runs statements in
 * the order they are sent (the embedded store's one session), so a batch is linked to the heads of
 * the batch before it while that one is still in flight and sent at once. Otherwise (PostgreSQL,
 * a pool of sessions, maybe several instances) a batch sent right behind another could reach the
 * database first and fail its check, so batches of one client take turns in this process.
 */
export function createEvaluationsRepo(
  database: Pick<DatabaseHandle, 'db' | 'executePrepared'>,
  opts: { inOrder?: boolean; onRelink?: () => void } = {},
) {
  const { db } = database;
  const knownHeads: Heads = new Map();
  /** Texts of the rows and slots statements by shape (see rowsQuery, slotsQuery). */
  const statementTexts = new Map<string, string>();
  // A client's entry is overwritten when its lane empties, never deleted: a long-lived Map with an
  // entry added and deleted per batch keeps every batch alive across minor GCs (see in-flight.ts).
  const lanes = new Map<string, Promise<void> | undefined>();

  async function headsFor(clients: string[]): Promise<Heads> {
    const missing = clients.filter((c) => !knownHeads.has(c));
    if (missing.length > 0)
      for (const [c, h] of await readHeads(db, missing)) {
        // A batch linked meanwhile already moved this client's head on from what was read.
        if (!knownHeads.has(c)) knownHeads.set(c, h);
      }
    return knownHeads;
  }

  async function linkAndWrite(records: EvaluationRecord[], clients: string[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const heads = await headsFor(clients);
      // From here to the write's dispatch nothing awaits: no other batch links in between.
      const from: Heads = new Map(clients.map((c) => [c, heads.get(c)!]));
      const { links, newHeads } = linkRecords(from, records);
      for (const [c, h] of newHeads) knownHeads.set(c, h);
      try {
        await writeBatch(database, statementTexts, records, links, from, newHeads);
        return;
      } catch (err) {
        // What the failed batch linked is not stored: read the heads again before the next link.
        for (const c of clients) knownHeads.delete(c);
        // The heads moved by someone else (see migration 009) or a deadlock between instances.
        if (!isTransientConflict(err) || attempt >= MAX_ATTEMPTS) throw err;
        opts.onRelink?.();
      }
    }
  }

  /** Runs `fn` after every earlier batch of any of these clients has settled. */
  async function inLane(clients: string[], fn: () => Promise<void>): Promise<void> {
    const before = clients.flatMap((c) => lanes.get(c) ?? []);
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    for (const c of clients) lanes.set(c, mine);
    try {
      await Promise.all(before);
      await fn();
    } finally {
      release();
      for (const c of clients) if (lanes.get(c) === mine) lanes.set(c, undefined);
    }
  }

  return {
    /**
     * Writes a batch of evaluations, their window transactions, the chain links and the cases and
     * alerts they open, atomically, in one statement.
     */
    async insertBatch(records: EvaluationRecord[]): Promise<void> {
      const clients = [...new Set(records.map((r) => r.client_id))].sort();
      if (opts.inOrder) await linkAndWrite(records, clients);
      else await inLane(clients, () => linkAndWrite(records, clients));
    },

    /**
     * Sums of customers' non-blocked transactions since a time, each leaving out one transaction id,
     * in one round trip for many lookups (one per evaluation being served).
     */
    async windowSums(lookups: WindowLookup[]): Promise<number[]> {
      // Each amount counts at most CAPPED_AMOUNT: any finite amount is accepted, and a sum of
      // two near the double's limit would fail the statement with "value out of range: overflow"
      // (every later evaluation of that customer with it). Far above any threshold, so no decision
      // changes.
      // One lookup alone (an unsaturated service) goes as plain parameters, without the JSON.
      if (lookups.length === 1) {
        const l = lookups[0]!;
        const one = await database.executePrepared<{ total: number }>(
          sql`
          SELECT coalesce(sum(least(amount_eur, ${CAPPED_AMOUNT})), 0) AS total FROM customer_transactions
           WHERE client_id = ${l.client_id} AND customer_id = ${l.customer_id}
             AND evaluated_at > ${l.since.toISOString()} AND transaction_id <> ${l.exclude} AND NOT blocked`.compile(
            db,
          ),
        );
        return [Number(one.rows[0]?.total ?? 0)];
      }
      // A correlated subquery per lookup: each is an index range scan, whatever the table's size.
      const rows = await database.executePrepared<{ i: number; total: number }>(
        sql`
        SELECT q.i,
               (SELECT coalesce(sum(least(t.amount_eur, ${CAPPED_AMOUNT})), 0) FROM customer_transactions t
                 WHERE t.client_id = q.client_id AND t.customer_id = q.customer_id AND t.evaluated_at > q.since
                   AND t.transaction_id <> q.exclude AND NOT t.blocked) AS total
          FROM json_to_recordset(${JSON.stringify(lookups.map((l, i) => ({ i, ...l })))}::json)
            AS q(i integer, client_id text, customer_id text, since timestamptz, exclude text)`.compile(db),
      );
      const totals = new Array<number>(lookups.length).fill(0);
      for (const r of rows.rows) totals[r.i] = Number(r.total);
      return totals;
    },

    /** One transaction id's window row, if evaluated after `since`. */
    async windowTransaction(clientId: string, transactionId: string, since: Date) {
      const row = await db
        .selectFrom('customer_transactions')
        .select(['customer_id', 'amount_eur'])
        .where('client_id', '=', clientId)
        .where('transaction_id', '=', transactionId)
        .where('evaluated_at', '>', since)
        .executeTakeFirst();
      return row ? { customer_id: row.customer_id, amount_eur: Number(row.amount_eur) } : undefined;
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
