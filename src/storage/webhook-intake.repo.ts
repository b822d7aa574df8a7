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
    async recordKycDecision(row: {
      client_id: string;
      customer_id: string;
      decision: string;
      alert_id: string;
      decided_at: string;
    }): Promise<void> {
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

/** SQL of webhook intake: each delivery is one transaction over these statements. */
export function createWebhookIntakeRepo(db: Db) {
  return {
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
