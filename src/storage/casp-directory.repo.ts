import { sql } from 'kysely';
import type { CaspEntry, CaspRecord } from '../domain/travel-rule/index.ts';
import type { Db } from './db.ts';

/** What is recorded about one import besides its rows. */
export interface CaspImportMeta {
  source: string;
  sha256: string;
  actor: string;
}

export interface CaspImportRow extends CaspImportMeta {
  version: number;
  row_count: number;
  imported_at: Date;
}

/** Rows per INSERT: big enough to load a large directory quickly, small enough for one parameter. */
const CHUNK = 5000;

/** SQL of the CASP directory (operator-wide reference data, migration 003). */
export function createCaspDirectoryRepo(db: Db) {
  return {
    /**
     * Replaces the whole directory and records the import in ONE transaction: readers keep the
     * old directory until the new one commits. `within` runs inside it (the operator audit).
     */
    async replace(
      records: readonly CaspRecord[],
      meta: CaspImportMeta,
      within?: (trx: Db) => Promise<void>,
    ): Promise<CaspImportRow> {
      return db.transaction().execute(async (trx) => {
        // EXCLUSIVE blocks a concurrent import (which would collide on the new keys) but not readers.
        await sql`LOCK TABLE casp_directory IN EXCLUSIVE MODE`.execute(trx);
        await sql`DELETE FROM casp_directory`.execute(trx);
        for (let i = 0; i < records.length; i += CHUNK) {
          const rows = records.slice(i, i + CHUNK).map((r) => ({
            lei: r.lei,
            name: r.name,
            country: r.country,
            extra: r.extra,
          }));
          await sql`
            INSERT INTO casp_directory (lei, name, country, extra)
            SELECT lei, name, country, coalesce(extra, '{}'::jsonb)
              FROM json_to_recordset(${JSON.stringify(rows)}::json)
                AS x(lei text, name text, country text, extra jsonb)
          `.execute(trx);
        }
        const row = await trx
          .insertInto('casp_directory_imports')
          .values({ ...meta, row_count: records.length })
          .returning(['id', 'imported_at'])
          .executeTakeFirstOrThrow();
        if (within) await within(trx);
        return { ...meta, version: Number(row.id), row_count: records.length, imported_at: row.imported_at };
      });
    },

    /** The id of the latest import, 0 when there was none: the cheap check done every few seconds. */
    async version(): Promise<number> {
      const row = await db
        .selectFrom('casp_directory_imports')
        .select('id')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? Number(row.id) : 0;
    },

    /** Every entry with the version they belong to, read from one snapshot. */
    async loadAll(): Promise<{ version: number; entries: CaspEntry[] }> {
      return db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          const latest = await trx
            .selectFrom('casp_directory_imports')
            .select('id')
            .orderBy('id', 'desc')
            .limit(1)
            .executeTakeFirst();
          const entries = await trx.selectFrom('casp_directory').select(['lei', 'name', 'country']).execute();
          return { version: latest ? Number(latest.id) : 0, entries };
        });
    },
  };
}
export type CaspDirectoryRepo = ReturnType<typeof createCaspDirectoryRepo>;
