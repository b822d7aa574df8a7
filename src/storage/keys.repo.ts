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
    /**
     * Rotation in one transaction: the old key, if it is still live and not yet rotated, gets its
     * life shortened to `graceUntil` (never lengthened) and a link to its successor, which is
     * inserted. Undefined when the old key cannot be rotated (revoked, expired, already rotated,
     * or rotated by a concurrent call a moment ago): then nothing is written.
     */
    async rotate(
      keyId: string,
      successor: Omit<Insertable<ApiKeysTable>, 'revoked_at' | 'replaced_by'>,
      graceUntil: Date,
      now: Date,
    ): Promise<{ old_expires_at: Date; row: KeyRow } | undefined> {
      return db.transaction().execute(async (trx) => {
        const old = await trx
          .updateTable('api_keys')
          .set((eb) => ({
            expires_at: eb.fn('least', [eb.ref('expires_at'), eb.val(graceUntil)]),
            replaced_by: successor.key_id,
          }))
          .where('key_id', '=', keyId)
          .where('revoked_at', 'is', null)
          .where('replaced_by', 'is', null)
          .where('expires_at', '>', now)
          .returning('expires_at')
          .executeTakeFirst();
        if (!old) return undefined;
        const row = await trx
          .insertInto('api_keys')
          .values({ ...successor, revoked_at: null, replaced_by: null })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { old_expires_at: new Date(old.expires_at as unknown as string | Date), row };
      });
    },
    /** Ids of the keys issued to an officer that still work at `at` (not revoked, not expired). */
    async activeForOfficer(clientId: string, officer: string, at: Date): Promise<string[]> {
      const rows = await db
        .selectFrom('api_keys')
        .select('key_id')
        .where('client_id', '=', clientId)
        .where('officer', '=', officer)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', at)
        .orderBy('key_id')
        .execute();
      return rows.map((r) => r.key_id);
    },
    /** A client's keys, newest first (never their digests). */
    async forClient(clientId: string): Promise<KeyRow[]> {
      return db
        .selectFrom('api_keys')
        .selectAll()
        .where('client_id', '=', clientId)
        .orderBy('created_at', 'desc')
        .orderBy('key_id')
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
