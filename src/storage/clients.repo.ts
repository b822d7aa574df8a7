import type { Selectable } from 'kysely';
import type { Db } from './db.ts';
import type { ClientsTable } from './schema.ts';

export type ClientRow = Selectable<ClientsTable>;

/** SQL for tenants. */
export function createClientsRepo(db: Db) {
  return {
    async insert(row: {
      client_id: string;
      name: string;
      settings?: Record<string, unknown>;
    }): Promise<boolean> {
      const res = await db
        .insertInto('clients')
        .values({ client_id: row.client_id, name: row.name, settings: JSON.stringify(row.settings ?? {}) })
        .onConflict((oc) => oc.column('client_id').doNothing())
        .returning('client_id')
        .executeTakeFirst();
      return res !== undefined;
    },
    async get(clientId: string): Promise<ClientRow | undefined> {
      return db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    },
    async updateSettings(clientId: string, settings: Record<string, unknown>): Promise<boolean> {
      const res = await db
        .updateTable('clients')
        .set({ settings: JSON.stringify(settings) })
        .where('client_id', '=', clientId)
        .returning('client_id')
        .executeTakeFirst();
      return res !== undefined;
    },
    async addOfficer(clientId: string, officer: string): Promise<boolean> {
      const res = await db
        .insertInto('compliance_officers')
        .values({ client_id: clientId, officer })
        .onConflict((oc) => oc.columns(['client_id', 'officer']).doNothing())
        .returning('officer')
        .executeTakeFirst();
      return res !== undefined;
    },
    async removeOfficer(clientId: string, officer: string): Promise<boolean> {
      const res = await db
        .deleteFrom('compliance_officers')
        .where('client_id', '=', clientId)
        .where('officer', '=', officer)
        .returning('officer')
        .executeTakeFirst();
      return res !== undefined;
    },
    async officers(clientId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('compliance_officers')
        .select('officer')
        .where('client_id', '=', clientId)
        .orderBy('officer')
        .execute();
      return rows.map((r) => r.officer);
    },
    async count(): Promise<number> {
      const row = await db
        .selectFrom('clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
export type ClientsRepo = ReturnType<typeof createClientsRepo>;
