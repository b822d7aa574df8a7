import { sql } from 'kysely';
import type { HistoryEntry } from '../domain/cases/state-machines.ts';
import type { DatabaseHandle, Db } from './db.ts';
import {
  followUpCtes,
  insertFollowUps,
  type NewAlert,
  type NewCase,
  type OpenedCase,
} from './follow-ups.repo.ts';

/** One delivery as received: the dedup key of intake and the exact bytes kept as evidence. */
export interface DeliveryRow {
  client_id: string;
  vendor: string;
  delivery_id: string;
  alert_id: string;
  event: string;
  raw_body: string;
  received_at: string;
}

/** The alert a vendor object already has, locked for the rest of the transaction. */
export interface LockedAlert {
  id: string;
  status: string;
  severity: string;
  case_id: string | null;
  case_number: string | null;
  created_at: Date;
  updated_at: Date;
}

/** What an update delivery changes on its alert. */
export interface AlertUpdate {
  severity: string;
  due_at: string;
  updated_at: string;
  /** The delivered body, as received (JSON text, stored verbatim: numbers keep every digit). */
  payload: string;
  headers: Record<string, string>;
  /** `case_id`: the case the alert is in after this entry (the transitions trail reads it). */
  history: HistoryEntry & { case_id: string | null };
  case_id: string | null;
}

/** A unique index said no: the same delivery or vendor object was committed by someone else first. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

/** The statements of webhook intake, bound to one transaction. */
function intakeStatements(trx: Db) {
  return {
    /** The vendor object's alert (locked), or undefined when the vendor object is new. */
    async lockAlert(
      clientId: string,
      source: string,
      vendorObjectId: string,
    ): Promise<LockedAlert | undefined> {
      const res = await sql<Omit<LockedAlert, 'case_number'>>`
        SELECT id, status, severity, case_id, created_at, updated_at
          FROM alerts
         WHERE client_id = ${clientId} AND source = ${source} AND vendor_object_id = ${vendorObjectId}
           FOR UPDATE`.execute(trx);
      const alert = res.rows[0];
      if (!alert) return undefined;
      // The case's number in a statement of its own: when the lock waited for a delivery that
      // opened the case, PostgreSQL re-read the locked alert (its new case_id) but joined it under
      // the statement's older snapshot, which has no such case: a case_id without its number.
      const c =
        alert.case_id === null
          ? undefined
          : await trx
              .selectFrom('cases')
              .select('case_number')
              .where('id', '=', alert.case_id)
              .executeTakeFirst();
      return { ...alert, case_number: c?.case_number ?? null };
    },

    /**
     * Records the delivery id; false when it was seen before. A concurrent identical delivery
     * waits here for the first one's transaction and then finds the conflict.
     */
    async insertDelivery(d: DeliveryRow): Promise<boolean> {
      const res = await trx
        .insertInto('webhook_deliveries')
        .values(d)
        .onConflict((oc) => oc.columns(['client_id', 'vendor', 'delivery_id']).doNothing())
        .returning('delivery_id')
        .executeTakeFirst();
      return res !== undefined;
    },

    /** Opens cases and alerts with numbers and assignees (the evaluation path's code). */
    openFollowUps: (cases: NewCase[], alerts: NewAlert[]): Promise<OpenedCase[]> =>
      insertFollowUps(trx, cases, alerts),

    /** Applies an update delivery to its alert; the status is the vendor's business only through history. */
    async updateAlert(id: string, u: AlertUpdate): Promise<void> {
      await sql`
        UPDATE alerts
           SET severity = ${u.severity}, due_at = ${u.due_at}, updated_at = ${u.updated_at},
               payload = ${u.payload}::json, headers = ${JSON.stringify(u.headers)}::jsonb,
               case_id = ${u.case_id}, history = history || ${JSON.stringify([u.history])}::jsonb
         WHERE id = ${id}`.execute(trx);
    },

    /** Keeps the latest decision per customer; a late, older delivery does not overwrite a newer one. */
    async recordKycDecision(row: KycDecisionRow): Promise<void> {
      await sql`
        INSERT INTO kyc_decisions (client_id, customer_id, decision, alert_id, decided_at)
        VALUES (${row.client_id}, ${row.customer_id}, ${row.decision}, ${row.alert_id}, ${row.decided_at})
        ON CONFLICT (client_id, customer_id) DO UPDATE
          SET decision = excluded.decision, alert_id = excluded.alert_id, decided_at = excluded.decided_at
        WHERE kyc_decisions.decided_at <= excluded.decided_at`.execute(trx);
    },
  };
}
export type IntakeStatements = ReturnType<typeof intakeStatements>;

/** A creation delivery ready to store: its dedup row, its alert, the case it opens, the KYC decision. */
export interface CreationRows {
  delivery: DeliveryRow;
  alert: NewAlert;
  case?: NewCase;
  kyc?: KycDecisionRow;
}

export interface KycDecisionRow {
  client_id: string;
  customer_id: string;
  decision: string;
  alert_id: string;
  decided_at: string;
}

/** What became of one creation of a batch: stored (with its case), or a duplicate and why. */
export type CreationOutcome = { stored: true; opened?: OpenedCase } | { stored: false; duplicate: string };

/**
 * Stores creation deliveries together, in one statement (one round trip and one commit per batch,
 * group commit). The caller gives distinct delivery ids and vendor objects. A delivery whose vendor
 * object already has an alert (locked, so an update delivery to it waits), or whose delivery id was
 * recorded before (a concurrent identical delivery waits on the other's insert and then finds the
 * conflict), is a duplicate and leaves nothing behind; the others' deliveries, alerts, cases (numbered
 * and assigned among the stored ones only) and KYC decisions commit together. A unique violation (a
 * concurrent instance stored the same vendor object meanwhile) fails the whole statement.
 */
async function createBatch(
  database: Pick<DatabaseHandle, 'db' | 'executePrepared'>,
  items: CreationRows[],
): Promise<CreationOutcome[]> {
  const keyed = items.map((i, n) => ({
    i: n,
    ...i.delivery,
    source: i.alert.source,
    vendor_object_id: i.alert.vendor_object_id,
    case_id: i.case?.id ?? null,
  }));
  // The latest decision of a customer is kept (the last given, among equal times).
  const decisions = items.flatMap((i, n) => (i.kyc ? [{ ...i.kyc, i: n }] : []));
  const cases = items.flatMap((i) => (i.case ? [i.case] : []));
  const res = await database.executePrepared<{
    i: number;
    taken: boolean;
    stored: boolean;
    case_number: string | null;
    assignee: string | null;
  }>(
    sql`
      WITH k AS (
        SELECT * FROM json_to_recordset(${JSON.stringify(keyed)}::json) AS x(i integer, client_id text, vendor text,
               delivery_id text, alert_id uuid, event text, raw_body text, received_at timestamptz,
               source text, vendor_object_id text, case_id uuid)
      ), taken AS (
        SELECT k.i FROM k JOIN alerts a
            ON a.client_id = k.client_id AND a.source = k.source AND a.vendor_object_id = k.vendor_object_id
           FOR UPDATE OF a
      ), ins AS (
        -- In key order, so two instances' batches cannot wait on each other in a cycle.
        INSERT INTO webhook_deliveries (client_id, vendor, delivery_id, alert_id, event, raw_body, received_at)
        SELECT client_id, vendor, delivery_id, alert_id, event, raw_body, received_at FROM k
         WHERE k.i NOT IN (SELECT i FROM taken)
         ORDER BY client_id COLLATE "C", vendor COLLATE "C", delivery_id COLLATE "C"
        ON CONFLICT (client_id, vendor, delivery_id) DO NOTHING
        RETURNING alert_id
      ), ${followUpCtes(
        cases,
        items.map((i) => i.alert),
        sql`SELECT alert_id FROM ins`,
      )}, kyc AS (
        INSERT INTO kyc_decisions (client_id, customer_id, decision, alert_id, decided_at)
        SELECT DISTINCT ON (client_id, customer_id) client_id, customer_id, decision, alert_id, decided_at
          FROM json_to_recordset(${JSON.stringify(decisions)}::json) AS d(i integer, client_id text,
               customer_id text, decision text, alert_id uuid, decided_at timestamptz)
         WHERE d.alert_id IN (SELECT alert_id FROM ins)
         ORDER BY client_id, customer_id, decided_at DESC, i DESC
        ON CONFLICT (client_id, customer_id) DO UPDATE
          SET decision = excluded.decision, alert_id = excluded.alert_id, decided_at = excluded.decided_at
        WHERE kyc_decisions.decided_at <= excluded.decided_at
      )
      SELECT k.i, k.i IN (SELECT i FROM taken) AS taken, k.alert_id IN (SELECT alert_id FROM ins) AS stored,
             c.case_number, c.assignee
        FROM k LEFT JOIN new_cases c ON c.id = k.case_id`.compile(database.db),
  );
  const byItem = new Map(res.rows.map((r) => [Number(r.i), r]));
  return items.map((item, n): CreationOutcome => {
    const r = byItem.get(n)!;
    if (r.taken)
      return {
        stored: false,
        duplicate: `vendor object ${item.alert.vendor_object_id} already has an alert`,
      };
    if (!r.stored)
      return { stored: false, duplicate: `delivery ${item.delivery.delivery_id} was processed before` };
    return {
      stored: true,
      opened:
        item.case && r.case_number
          ? { id: item.case.id, case_number: r.case_number, assignee: r.assignee }
          : undefined,
    };
  });
}

/** SQL of webhook intake: each delivery is one transaction over these statements. */
export function createWebhookIntakeRepo(database: Pick<DatabaseHandle, 'db' | 'executePrepared'>) {
  const { db } = database;
  return {
    /** Stores creation deliveries in one statement (see createBatch). */
    createBatch(items: CreationRows[]): Promise<CreationOutcome[]> {
      return createBatch(database, items);
    },

    /** Runs `fn` in one transaction; anything it throws rolls everything back. */
    inTransaction<T>(fn: (s: IntakeStatements) => Promise<T>): Promise<T> {
      return db.transaction().execute((trx) => fn(intakeStatements(trx)));
    },

    /** The latest KYC decision of a customer, for the client. */
    async kycDecision(clientId: string, customerId: string) {
      return db
        .selectFrom('kyc_decisions')
        .selectAll()
        .where('client_id', '=', clientId)
        .where('customer_id', '=', customerId)
        .executeTakeFirst();
    },
  };
}
export type WebhookIntakeRepo = ReturnType<typeof createWebhookIntakeRepo>;
