import {
  type AddressIndex,
  buildAddressIndex,
  buildNameIndex,
  ListFormatError,
  type ListSource,
  type NameIndex,
  parseEuXml,
  parseOfacCsv,
  parseOfacXml,
  parseUnXml,
  type SanctionsList,
} from '../domain/screening/index.ts';
import { AppError } from '../errors.ts';
import type { OperatorAuditRepo } from '../storage/operator-audit.repo.ts';
import { importEvent, type ListMeta, type SanctionsListsRepo } from '../storage/sanctions-lists.repo.ts';

/** One file of an import, as read by the CLI (its base name and its text). */
export interface ListFile {
  name: string;
  content: string;
}

/** What screening reads: the indexes of every held list and the versions they were built from. */
export interface HeldLists {
  tag: string;
  addresses: AddressIndex;
  names: NameIndex;
  meta: ListMeta[];
}

/**
 * What an operator is told at start-up about the held lists. With none, every address screens as
 * clean unless a vendor says otherwise, and nothing in an answer shows it (the audit record has an
 * empty `sanctions_lists`): so that is a warning, with the command that fixes it.
 */
export function heldListsNotice(meta: readonly ListMeta[]): {
  level: 'info' | 'warn';
  lists: { source: string; published_at: string | null; entries: number; screenable_addresses: number }[];
  message: string;
} {
  const lists = meta.map((m) => ({
    source: m.source,
    published_at: m.published_at,
    entries: m.entry_count,
    screenable_addresses: m.screenable_address_count,
  }));
  if (lists.length === 0)
    return {
      level: 'warn',
      lists,
      message:
        'no sanctions list is held: wallet screening relies on the configured vendors alone; import one with `npm run mica -- lists import <ofac|un|eu> <path>`',
    };
  return { level: 'info', lists, message: `sanctions lists held: ${lists.map((l) => l.source).join(', ')}` };
}

/** Largest list import (all files together); JSON-escaped it fits the operator API's 256 MiB body. */
export const LIST_IMPORT_MAX_BYTES = 128 * 1024 * 1024;

const OFAC_CSV = { sdn: 'sdn.csv', add: 'add.csv', alt: 'alt.csv', comments: 'sdn_comments.csv' } as const;

const baseName = (name: string) => name.split(/[\\/]/).pop()?.toLowerCase() ?? '';
const looksLikeXml = (content: string) => /^\uFEFF?\s*</.test(content);

function single(source: ListSource, files: ListFile[], what: string): ListFile {
  if (files.length !== 1)
    throw new ListFormatError(`${source}: expected one ${what} file, got ${files.length}`);
  return files[0]!;
}

/** Picks the loader from the source and the files' names and contents; the loaders check the structure. */
export function parseListFiles(
  source: ListSource,
  files: ListFile[],
  publishedAt?: string | null,
): SanctionsList & { warnings: string[] } {
  let list: SanctionsList & { warnings?: string[] };
  if (source === 'ofac') {
    const byName = new Map(files.map((f) => [baseName(f.name), f.content]));
    const sdn = byName.get(OFAC_CSV.sdn);
    if (sdn !== undefined) {
      const unknown = files.filter((f) => !Object.values(OFAC_CSV).includes(baseName(f.name) as never));
      if (unknown.length > 0)
        throw new ListFormatError(
          `ofac: unexpected file ${unknown[0]!.name} beside sdn.csv (expected add.csv, alt.csv, sdn_comments.csv)`,
        );
      list = parseOfacCsv(
        {
          sdn,
          add: byName.get(OFAC_CSV.add),
          alt: byName.get(OFAC_CSV.alt),
          comments: byName.get(OFAC_CSV.comments),
        },
        { published_at: publishedAt ?? null },
      );
    } else {
      const file = single(source, files, 'sdn.csv or sdn.xml');
      // A lone CSV under another name is read as sdn.csv; its column check rejects anything else.
      list = looksLikeXml(file.content)
        ? parseOfacXml(file.content)
        : parseOfacCsv({ sdn: file.content }, { published_at: publishedAt ?? null });
    }
  } else {
    const file = single(source, files, 'XML');
    if (!looksLikeXml(file.content))
      throw new ListFormatError(
        `${source}: ${file.name} is not XML; only the XML format of this list is read`,
      );
    list = source === 'un' ? parseUnXml(file.content) : parseEuXml(file.content);
  }
  if (list.entries.length === 0)
    throw new ListFormatError(`${source}: the file holds no entries; the held list was left unchanged`);
  const warnings = [...(list.warnings ?? [])];
  // Loaders keep the first of duplicated ids (OFAC CSV already does); the store needs unique ids.
  const seen = new Set<string>();
  const entries = list.entries.filter((e) => {
    if (!seen.has(e.entry_id)) return seen.add(e.entry_id);
    warnings.push(`${source}: duplicate entry id ${e.entry_id} ignored`);
    return false;
  });
  return {
    source: list.source,
    published_at: list.published_at ?? publishedAt ?? null,
    entries,
    addresses: list.addresses,
    warnings,
  };
}

const EMPTY: HeldLists = {
  tag: '',
  addresses: buildAddressIndex([]),
  names: buildNameIndex([]),
  meta: [],
};

/**
 * Imports lists (atomically, audited) and holds their indexes in memory for screening. The stored
 * versions are polled at most every `refreshMs`, in the background of a request, so an import
 * made by another instance (or the CLI) is picked up without a query per request.
 */
export function createSanctionsListsService(deps: {
  repo: SanctionsListsRepo;
  audit: Pick<OperatorAuditRepo, 'record'>;
  refreshMs: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}) {
  const now = deps.now ?? Date.now;
  let held: HeldLists | undefined;
  let loading: Promise<HeldLists> | undefined;
  let checkedAt = 0;
  let checking: Promise<void> | undefined;

  async function load(): Promise<HeldLists> {
    const startedAt = now();
    const snap = await deps.repo.loadAll();
    const next: HeldLists = {
      tag: snap.tag,
      addresses: buildAddressIndex(snap.lists),
      names: buildNameIndex(snap.lists),
      meta: snap.meta,
    };
    held = next;
    checkedAt = startedAt;
    return next;
  }

  function reload(): Promise<HeldLists> {
    loading ??= load().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  async function refreshIfChanged(): Promise<void> {
    try {
      const tag = await deps.repo.versionTag();
      if (tag !== held?.tag) await reload();
    } catch (err) {
      // The held lists keep serving; the next check tries again.
      deps.onError?.(err);
    } finally {
      checking = undefined;
    }
  }

  return {
    /**
     * The held lists. The first call loads them. Under steady traffic the version check runs in
     * the background of a request; after an idle spell (no check for two intervals) the request
     * waits for that one small query, so no answer rests on lists older than about two intervals.
     */
    async current(): Promise<HeldLists> {
      if (!held) return reload();
      const age = now() - checkedAt;
      if (!checking && age >= deps.refreshMs) {
        checkedAt = now();
        checking = refreshIfChanged();
      }
      if (checking && age >= 2 * deps.refreshMs) await checking;
      return held;
    },

    /** Parses and stores a list, replacing the held one of that source, then reloads the indexes. */
    async import(
      args: { source: ListSource; files: ListFile[]; published_at?: string | null },
      actor: string,
    ) {
      let list: ReturnType<typeof parseListFiles>;
      try {
        list = parseListFiles(args.source, args.files, args.published_at);
      } catch (err) {
        if (err instanceof ListFormatError) throw new AppError('INVALID_REQUEST', err.message);
        throw err;
      }
      const files = args.files.map((f) => baseName(f.name));
      const meta = await deps.repo.replace(list, { files, actor }, (trx, m) =>
        deps.audit.record(importEvent(m, list.warnings.length), trx),
      );
      // A load already under way may predate the commit: let it finish, then load again. A process
      // that never screened (the CLI) leaves the indexes to be built by the first screening.
      await loading?.catch(() => undefined);
      if (held) await reload();
      return {
        source: meta.source,
        version: meta.version,
        published_at: meta.published_at,
        imported_at: meta.imported_at,
        entries: meta.entry_count,
        aliases: meta.alias_count,
        addresses: meta.address_count,
        screenable_addresses: meta.screenable_address_count,
        files: meta.files,
        warnings: list.warnings.slice(0, 50),
        warning_count: list.warnings.length,
      };
    },

    /** What is held, per source. */
    async status() {
      return { lists: await deps.repo.meta() };
    },

    /** Held lists without touching the database (empty before the first load). */
    peek: (): HeldLists => held ?? EMPTY,
  };
}
export type SanctionsListsService = ReturnType<typeof createSanctionsListsService>;
