import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Db } from '../db.ts';
import * as m001 from './001-foundation.ts';
import * as m002 from './002-sanctions-lists.ts';
import * as m003 from './003-casp-directory.ts';
import * as m004 from './004-alerts-cases.ts';
import * as m005 from './005-webhooks.ts';
import * as m006 from './006-app-role.ts';
import * as m008 from './008-officer-open-cases.ts';
import * as m009 from './009-chain-head-check.ts';
import * as m010 from './010-audit-column-statistics.ts';
import * as m011 from './011-action-executions.ts';
import * as m012 from './012-retention-floor.ts';
import * as m013 from './013-audit-text-compression.ts';
import * as m014 from './014-alert-payload-order.ts';
import * as m015 from './015-window-days-bound.ts';
import * as m016 from './016-high-risk-codes-assigned.ts';
import * as m017 from './017-retention-by-chain-position.ts';
import * as m018 from './018-str-sweep-lease.ts';
import * as m019 from './019-retention-one-at-a-time.ts';
import * as m020 from './020-str-sweep-repair.ts';
import * as m021 from './021-retention-never-past-the-cutoff.ts';
import * as m022 from './022-case-former-alerts.ts';
import * as m023 from './023-chain-seq-positive.ts';
import * as m024 from './024-audit-views-chain-position.ts';
import * as m025 from './025-retention-nothing-due.ts';
import * as m026 from './026-escalated-cases-not-str.ts';
import * as m027 from './027-case-opened-assignee.ts';
import * as m028 from './028-country-code-look-alikes.ts';

/** Migrations are compiled in, so a fresh clone migrates without reading a folder at run time. */
const MIGRATIONS: Record<string, Migration> = {
  '001-foundation': m001,
  '002-sanctions-lists': m002,
  '003-casp-directory': m003,
  '004-alerts-cases': m004,
  '005-webhooks': m005,
  '006-app-role': m006,
  '008-officer-open-cases': m008,
  '009-chain-head-check': m009,
  '010-audit-column-statistics': m010,
  '011-action-executions': m011,
  '012-retention-floor': m012,
  '013-audit-text-compression': m013,
  '014-alert-payload-order': m014,
  '015-window-days-bound': m015,
  '016-high-risk-codes-assigned': m016,
  '017-retention-by-chain-position': m017,
  '018-str-sweep-lease': m018,
  '019-retention-one-at-a-time': m019,
  '020-str-sweep-repair': m020,
  '021-retention-never-past-the-cutoff': m021,
  '022-case-former-alerts': m022,
  '023-chain-seq-positive': m023,
  '024-audit-views-chain-position': m024,
  '025-retention-nothing-due': m025,
  '026-escalated-cases-not-str': m026,
  '027-case-opened-assignee': m027,
  '028-country-code-look-alikes': m028,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings the schema to the latest version; returns the names applied now. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  // Migrations are written in parallel by feature: a store that already has 003 must still
  // accept a 002 that lands later, so the order of application is not enforced.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
