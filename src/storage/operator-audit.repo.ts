import type { Db } from './db.ts';

export interface OperatorEvent {
  client_id: string | null;
  actor: string;
  action: string;
  subject: string | null;
  detail?: Record<string, unknown>;
}

/** Append-only log of operator actions: client and key lifecycle, list imports. */
export function createOperatorAuditRepo(db: Db) {
  return {
    async record(event: OperatorEvent, trx: Db = db): Promise<void> {
      await trx
        .insertInto('operator_audit')
        .values({ ...event, detail: JSON.stringify(event.detail ?? {}) })
        .execute();
    },
    /** Events in the order they happened; with `limit`, the newest that many. */
    async list(filter: { client_id?: string; subject?: string; limit?: number }) {
      let q = db.selectFrom('operator_audit').selectAll().orderBy('id', 'desc');
      if (filter.client_id) q = q.where('client_id', '=', filter.client_id);
      if (filter.subject) q = q.where('subject', '=', filter.subject);
      if (filter.limit !== undefined) q = q.limit(filter.limit);
      return (await q.execute()).reverse();
    },
  };
}
export type OperatorAuditRepo = ReturnType<typeof createOperatorAuditRepo>;
