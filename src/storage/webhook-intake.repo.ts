import { sql } from 'kysely';
import type { HistoryEntry } from '../domain/cases/state-machines.ts';
import type { Db } from './db.ts';
import { insertFollowUps, type NewAlert, type NewCase, type OpenedCase } from './follow-ups.repo.ts';

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
}

/** What an update delivery changes on its alert. */
export interface AlertUpdate {
  severity: string;
  due_at: string;
  updated_at: string;
  payload: unknown;
  headers: Record<string, string>;
  history: HistoryEntry;
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
      const res = await sql<LockedAlert>`
        SELECT a.id, a.status, a.severity, a.case_id, c.case_number, a.created_at
          FROM alerts a LEFT JOIN cases c ON c.id = a.case_id
         WHERE a.client_id = ${clientId} AND a.source = ${source} AND a.vendor_object_id = ${vendorObjectId}
           FOR UPDATE OF a`.execute(trx);
      return res.rows[0];
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
               payload = ${JSON.stringify(u.payload)}::jsonb, headers = ${JSON.stringify(u.headers)}::jsonb,
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
 * Stores creation deliveries together, in one transaction: a few statements per batch instead of
 * a few per delivery (group commit). The caller gives distinct delivery ids and vendor objects.
 * A delivery whose vendor object already has an alert, or whose delivery id was recorded before,
 * is a duplicate and leaves nothing behind; the others commit together. A unique violation (a
 * concurrent instance stored the same vendor object meanwhile) rolls the whole batch back.
 */
async function createBatch(trx: Db, items: CreationRows[]): Promise<CreationOutcome[]> {
  const outcomes: CreationOutcome[] = items.map(() => ({ stored: true }));
  const keys = items.map((i) => ({
    client_id: i.alert.client_id,
    source: i.alert.source,
    vendor_object_id: i.alert.vendor_object_id,
  }));
  const existing = await sql<{ client_id: string; source: string; vendor_object_id: string }>`
    SELECT a.client_id, a.source, a.vendor_object_id
      FROM alerts a
      JOIN json_to_recordset(${JSON.stringify(keys)}::json) AS k(client_id text, source text, vendor_object_id text)
        ON a.client_id = k.client_id AND a.source = k.source AND a.vendor_object_id = k.vendor_object_id
       FOR UPDATE OF a`.execute(trx);
  const key = (c: string, s: string, o: string | null) => `${c}\u0000${s}\u0000${o}`;
  const taken = new Set(existing.rows.map((r) => key(r.client_id, r.source, r.vendor_object_id)));
  let live: number[] = [];
  items.forEach((i, n) => {
    if (taken.has(key(i.alert.client_id, i.alert.source, i.alert.vendor_object_id)))
      outcomes[n] = {
        stored: false,
        duplicate: `vendor object ${i.alert.vendor_object_id} already has an alert`,
      };
    else live.push(n);
  });
  if (live.length > 0) {
    // A concurrent identical delivery waits here for the other transaction, then finds the conflict.
    // Inserted in key order, so two instances' batches cannot wait on each other in a cycle.
    const deliveries = live
      .map((n) => items[n]!.delivery)
      .sort((a, b) => {
        const ka = key(a.client_id, a.vendor, a.delivery_id);
        const kb = key(b.client_id, b.vendor, b.delivery_id);
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      });
    const recorded = await sql<{ client_id: string; vendor: string; delivery_id: string }>`
      INSERT INTO webhook_deliveries (client_id, vendor, delivery_id, alert_id, event, raw_body, received_at)
      SELECT client_id, vendor, delivery_id, alert_id, event, raw_body, received_at
        FROM json_to_recordset(${JSON.stringify(deliveries)}::json)
          AS d(client_id text, vendor text, delivery_id text, alert_id uuid, event text, raw_body text,
               received_at timestamptz)
      ON CONFLICT (client_id, vendor, delivery_id) DO NOTHING
      RETURNING client_id, vendor, delivery_id`.execute(trx);
    const inserted = new Set(recorded.rows.map((r) => key(r.client_id, r.vendor, r.delivery_id)));
    live = live.filter((n) => {
      const d = items[n]!.delivery;
      if (inserted.has(key(d.client_id, d.vendor, d.delivery_id))) return true;
      outcomes[n] = { stored: false, duplicate: `delivery ${d.delivery_id} was processed before` };
      return false;
    });
  }
  if (live.length === 0) return outcomes;
  const cases = live.flatMap((n) => (items[n]!.case ? [items[n]!.case!] : []));
  const opened = await insertFollowUps(
    trx,
    cases,
    live.map((n) => items[n]!.alert),
  );
  const byId = new Map(opened.map((o) => [o.id, o]));
  for (const n of live) {
    const c = items[n]!.case;
    outcomes[n] = { stored: true, opened: c ? byId.get(c.id) : undefined };
  }
  const statements = intakeStatements(trx);
  // Oldest first, so that the latest decision of a customer is the one kept.
  const decisions = live
    .flatMap((n) => (items[n]!.kyc ? [items[n]!.kyc!] : []))
    .sort((a, b) => a.decided_at.localeCompare(b.decided_at));
  for (const d of decisions) await statements.recordKycDecision(d);
  return outcomes;
}

/** SQL of webhook intake: each delivery is one transaction over these statements. */
export function createWebhookIntakeRepo(db: Db) {
  return {
    /** Stores creation deliveries in one transaction (see createBatch). */
    createBatch(items: CreationRows[]): Promise<CreationOutcome[]> {
      return db.transaction().execute((trx) => createBatch(trx, items));
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
