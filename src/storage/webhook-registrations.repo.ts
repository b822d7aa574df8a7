import type { Db } from './db.ts';

export interface RegistrationRow {
  id: string;
  client_id: string;
  kind: string;
  created_at: Date;
  created_by: string;
}

export interface SecretRow {
  registration_id: string;
  fingerprint: string;
  sealed: string;
  created_at: Date;
}

/** SQL of webhook registrations and their sealed secrets. */
export function createWebhookRegistrationsRepo(db: Db) {
  return {
    /** The registration of a client and kind, creating it with `id` when there is none. */
    async upsert(row: {
      id: string;
      client_id: string;
      kind: string;
      created_by: string;
    }): Promise<RegistrationRow> {
      await db
        .insertInto('webhook_registrations')
        .values(row)
        .onConflict((oc) => oc.columns(['client_id', 'kind']).doNothing())
        .execute();
      return db
        .selectFrom('webhook_registrations')
        .selectAll()
        .where('client_id', '=', row.client_id)
        .where('kind', '=', row.kind)
        .executeTakeFirstOrThrow();
    },
    /** Adds a secret; false when the registration already holds one with this fingerprint. */
    async addSecret(row: {
      registration_id: string;
      fingerprint: string;
      sealed: string;
      created_by: string;
    }): Promise<boolean> {
      const res = await db
        .insertInto('webhook_secrets')
        .values(row)
        .onConflict((oc) => oc.columns(['registration_id', 'fingerprint']).doNothing())
        .returning('fingerprint')
        .executeTakeFirst();
      return res !== undefined;
    },
    async byId(id: string): Promise<RegistrationRow | undefined> {
      return db.selectFrom('webhook_registrations').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Registrations, oldest first, optionally of one client and/or kind. */
    async list(filter: { client_id?: string; kind?: string } = {}): Promise<RegistrationRow[]> {
      let q = db.selectFrom('webhook_registrations').selectAll().orderBy('created_at').orderBy('id');
      if (filter.client_id !== undefined) q = q.where('client_id', '=', filter.client_id);
      if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
      return q.execute();
    },
    /** The secrets of the given registrations, oldest first within each. */
    async secretsOf(registrationIds: string[]): Promise<SecretRow[]> {
      if (registrationIds.length === 0) return [];
      return db
        .selectFrom('webhook_secrets')
        .select(['registration_id', 'fingerprint', 'sealed', 'created_at'])
        .where('registration_id', 'in', registrationIds)
        .orderBy('created_at')
        .orderBy('fingerprint')
        .execute();
    },
    async removeSecret(registrationId: string, fingerprint: string): Promise<boolean> {
      const res = await db
        .deleteFrom('webhook_secrets')
        .where('registration_id', '=', registrationId)
        .where('fingerprint', '=', fingerprint)
        .returning('fingerprint')
        .executeTakeFirst();
      return res !== undefined;
    },
    /** Deletes a registration and (by cascade) its secrets. */
    async remove(id: string): Promise<boolean> {
      const res = await db
        .deleteFrom('webhook_registrations')
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst();
      return res !== undefined;
    },
  };
}
export type WebhookRegistrationsRepo = ReturnType<typeof createWebhookRegistrationsRepo>;
