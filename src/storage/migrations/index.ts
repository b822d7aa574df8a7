import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Db } from '../db.ts';
import * as m001 from './001-foundation.ts';

/** Migrations are compiled in, so a fresh clone migrates without reading a folder at run time. */
const MIGRATIONS: Record<string, Migration> = {
  '001-foundation': m001,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings the schema to the latest version; returns the names applied now. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
