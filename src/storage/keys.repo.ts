import type { Insertable, Selectable } from 'kysely';
import type { Db } from './db.ts';
import type { ApiKeysTable } from './schema.ts';

export type KeyRow = Selectable<ApiKeysTable>;

/** SQL for API keys; keys are found by the SHA-256 digest's unique index, never by the key itself. */
export function createKeysRepo(db: Db) {
  return {
    async insert(row: Omit<Insertable<ApiKeysTable>, 'revoked_at' | 'replaced_by'>): Promise<KeyRow> {
      return await db
        .insertInto('api_keys')
        .values({ ...row, revoked_at: null, replaced_by: null })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async byHash(hash: string): Promise<KeyRow | undefined> {
      return db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
    },
    async byId(keyId: string): Promise<KeyRow | undefined> {
      return db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
    },
    async revoke(keyId: string, at: Date): Promise<boolean> {
      const res = await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('key_id', '=', keyId)
        .where('revoked_at', 'is', null)
        .returning('key_id')
        .executeTakeFirst();
      return res !== undefined;
    },
    /** Shortens the old key's life to the grace period and links it to its successor. */
    async retire(keyId: string, expiresAt: Date, replacedBy: string): Promise<void> {
      await db
        .updateTable('api_keys')
        .set((eb) => ({
          expires_at: eb.fn('least', [eb.ref('expires_at'), eb.val(expiresAt)]),
          replaced_by: replacedBy,
        }))
        .where('key_id', '=', keyId)
        .execute();
    },
    async countForClient(clientId: string): Promise<number> {
      const row = await db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('client_id', '=', clientId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
export type KeysRepo = ReturnType<typeof createKeysRepo>;
