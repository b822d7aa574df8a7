import { sql } from 'kysely';
import type {
  AddressScope,
  EntryType,
  ListedAddress,
  ListSource,
  SanctionsEntry,
  SanctionsList,
} from '../domain/screening/index.ts';
import type { Db } from './db.ts';
import type { OperatorEvent } from './operator-audit.repo.ts';

/** What is recorded about one held list. */
export interface ListMeta {
  source: ListSource;
  version: number;
  published_at: string | null;
  imported_at: string;
  imported_by: string;
  entry_count: number;
  alias_count: number;
  address_count: number;
  screenable_address_count: number;
  files: string[];
}

/**
 * Where an import's publication date came from: the file's own, the operator's (--published-at),
 * or the main file's modification date (OFAC CSV set, first import of the source only).
 */
export type PublishedAtFrom = 'file' | 'operator' | 'file_date';

/**
 * A parsed list as the store takes it: its rows already as the JSON texts of the insert, and the
 * counts recorded with it. Plain strings and numbers, so that it crosses from the worker thread
 * that parses (services/list-prep-thread.ts) to the main thread as a copy of a few strings, not
 * as an object per entry.
 */
export interface PreparedList {
  source: ListSource;
  /** Every imported list carries one (CONTRACT §7): YYYY-MM-DD, or a UTC date-time (…Z). */
  published_at: string;
  published_at_from: PublishedAtFrom;
  /** With a date from 'file_date': what the files lack (`sdn.csv carries no publication date (…)`). */
  undated: string | null;
  /** The files' base names, as recorded with the list. */
  files: string[];
  entries_json: string;
  addresses_json: string;
  counts: {
    entry_count: number;
    alias_count: number;
    address_count: number;
    screenable_address_count: number;
  };
  warnings: string[];
  warning_count: number;
}

/** Every held list as one consistent snapshot, with the tag that identifies its versions. */
export interface ListsSnapshot {
  tag: string;
  meta: ListMeta[];
  lists: SanctionsList[];
}

/** `ofac:3,un:1`: changes whenever any list is re-imported; '' when none is held. */
function tagOf(rows: Array<{ source: string; version: number | string }>): string {
  return rows
    .map((r) => `${r.source}:${Number(r.version)}`)
    .sort()
    .join(',');
}

function metaOf(r: Record<string, unknown>): ListMeta {
  const at = r.imported_at;
  return {
    source: r.source as ListSource,
    version: Number(r.version),
    published_at: (r.published_at as string | null) ?? null,
    imported_at: at instanceof Date ? at.toISOString() : new Date(String(at)).toISOString(),
    imported_by: String(r.imported_by),
    entry_count: Number(r.entry_count),
    alias_count: Number(r.alias_count),
    address_count: Number(r.address_count),
    screenable_address_count: Number(r.screenable_address_count),
    files: (r.files as string[]) ?? [],
  };
}

/** The SQL of the held sanctions lists: atomic replacement, cheap version check, full load. */
export function createSanctionsListsRepo(db: Db) {
  return {
    /**
     * Replaces one source's list in a single transaction (readers keep the old list until the
     * commit), records the import in the operator audit log there too, and returns the new meta.
     * `admit` is shown the held list's publication date (undefined when none is held) once the
     * source is locked, so that no other import of it can commit in between; it throws to refuse.
     */
    async replace(
      list: PreparedList,
      actor: string,
      admit: (heldPublishedAt: string | null | undefined) => void,
      audit: (trx: Db, meta: ListMeta) => Promise<void>,
    ): Promise<ListMeta> {
      return db.transaction().execute(async (trx) => {
        // Two imports of one source run one after the other, never interleaved.
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`sanctions:${list.source}`}))`.execute(trx);
        const held = await trx
          .selectFrom('sanctions_lists')
          .select('published_at')
          .where('source', '=', list.source)
          .executeTakeFirst();
        admit(held?.published_at);
        await sql`DELETE FROM sanctions_addresses WHERE source = ${list.source}`.execute(trx);
        await sql`DELETE FROM sanctions_entries WHERE source = ${list.source}`.execute(trx);
        await sql`
          INSERT INTO sanctions_entries (source, entry_id, name, entry_type, programs, aliases)
          SELECT ${list.source}, x.entry_id, x.name, x.entry_type, x.programs, x.aliases
            FROM json_to_recordset(${list.entries_json}::json)
              AS x(entry_id text, name text, entry_type text, programs jsonb, aliases jsonb)`.execute(trx);
        await sql`
          INSERT INTO sanctions_addresses (source, entry_id, ticker, address, scope, match_key)
          SELECT ${list.source}, x.entry_id, x.ticker, x.address, x.scope, x.match_key
            FROM json_to_recordset(${list.addresses_json}::json)
              AS x(entry_id text, ticker text, address text, scope text, match_key text)`.execute(trx);
        const row = await trx
          .insertInto('sanctions_lists')
          .values({
            source: list.source,
            version: 1,
            published_at: list.published_at,
            imported_at: new Date(),
            imported_by: actor,
            ...list.counts,
            files: JSON.stringify(list.files),
          })
          .onConflict((oc) =>
            oc.column('source').doUpdateSet((eb) => ({
              version: sql<number>`${eb.ref('sanctions_lists.version')} + 1`,
              published_at: eb.ref('excluded.published_at'),
              imported_at: eb.ref('excluded.imported_at'),
              imported_by: eb.ref('excluded.imported_by'),
              entry_count: eb.ref('excluded.entry_count'),
              alias_count: eb.ref('excluded.alias_count'),
              address_count: eb.ref('excluded.address_count'),
              screenable_address_count: eb.ref('excluded.screenable_address_count'),
              files: eb.ref('excluded.files'),
            })),
          )
          .returningAll()
          .executeTakeFirstOrThrow();
        const meta = metaOf(row as unknown as Record<string, unknown>);
        await audit(trx as unknown as Db, meta);
        return meta;
      });
    },

    /** The versions tag alone: one tiny query, cheap enough to poll every few seconds. */
    async versionTag(): Promise<string> {
      return tagOf(await db.selectFrom('sanctions_lists').select(['source', 'version']).execute());
    },

    async meta(): Promise<ListMeta[]> {
      const rows = await db.selectFrom('sanctions_lists').selectAll().orderBy('source').execute();
      return rows.map((r) => metaOf(r as unknown as Record<string, unknown>));
    },

    /** Every held list, read in one snapshot so the tag matches the contents. */
    async loadAll(): Promise<ListsSnapshot> {
      return db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          const metaRows = await trx.selectFrom('sanctions_lists').selectAll().execute();
          const entryRows = await trx
            .selectFrom('sanctions_entries')
            .select(['source', 'entry_id', 'name', 'entry_type', 'programs', 'aliases'])
            .execute();
          const addressRows = await trx
            .selectFrom('sanctions_addresses')
            .select(['source', 'entry_id', 'ticker', 'address', 'scope', 'match_key'])
            .orderBy('id')
            .execute();
          const meta = metaRows.map((r) => metaOf(r as unknown as Record<string, unknown>));
          const bySource = new Map<string, SanctionsList>(
            meta.map((m) => [
              m.source,
              { source: m.source, published_at: m.published_at, entries: [], addresses: [] },
            ]),
          );
          for (const r of entryRows) {
            const entry: SanctionsEntry = {
              entry_id: r.entry_id,
              name: r.name,
              type: r.entry_type as EntryType,
              programs: r.programs,
              aliases: r.aliases,
            };
            bySource.get(r.source)?.entries.push(entry);
          }
          for (const r of addressRows) {
            const listed: ListedAddress = {
              entry_id: r.entry_id,
              ticker: r.ticker,
              address: r.address,
              scope: r.scope as AddressScope,
              match_key: r.match_key,
            };
            bySource.get(r.source)?.addresses.push(listed);
          }
          return { tag: tagOf(metaRows), meta, lists: [...bySource.values()] };
        });
    },
  };
}
export type SanctionsListsRepo = ReturnType<typeof createSanctionsListsRepo>;

/**
 * The operator-audit event of an import. `published_at_from`: where its publication date came from.
 * `rolled_back_from`: the publication date of the newer list an import given allow_older replaced;
 * null when the import did not go back in time.
 */
export function importEvent(
  meta: ListMeta,
  warnings: number,
  override: { published_at_from: PublishedAtFrom; allow_older: boolean; rolled_back_from: string | null },
): OperatorEvent {
  return {
    client_id: null,
    actor: meta.imported_by,
    action: 'sanctions_list.imported',
    subject: meta.source,
    detail: {
      source: meta.source,
      version: meta.version,
      published_at: meta.published_at,
      published_at_from: override.published_at_from,
      entries: meta.entry_count,
      aliases: meta.alias_count,
      addresses: meta.address_count,
      screenable_addresses: meta.screenable_address_count,
      files: meta.files,
      warnings,
      allow_older: override.allow_older,
      rolled_back_from: override.rolled_back_from,
    },
  };
}
