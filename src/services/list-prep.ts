import {
  ListFormatError,
  type ListSource,
  parseEuXml,
  parseOfacCsv,
  parseOfacXml,
  parseUnXml,
  type SanctionsList,
} from '../domain/screening/index.ts';
import type { PreparedList } from '../storage/sanctions-lists.repo.ts';

export type { PreparedList };

/** One file of an import, as read by the CLI (its base name and its text). */
export interface ListFile {
  name: string;
  content: string;
}

/** What an import asks for: the source, its files, and a publication date when the files carry none. */
export interface ListImportRequest {
  source: ListSource;
  files: ListFile[];
  published_at?: string | null;
}

/** Warnings kept in an import's answer; the count covers them all. */
const WARNINGS_SHOWN = 50;

const OFAC_CSV = { sdn: 'sdn.csv', add: 'add.csv', alt: 'alt.csv', comments: 'sdn_comments.csv' } as const;

/** A file's name without its directory, as given (recorded with the import). */
const fileName = (name: string) => name.split(/[\\/]/).pop() ?? '';
/** The same, lower-cased: how files are recognised (SDN.CSV is sdn.csv). */
const baseName = (name: string) => fileName(name).toLowerCase();
const looksLikeXml = (content: string) => /^\uFEFF?\s*</.test(content);

function single(source: ListSource, files: ListFile[], what: string): ListFile {
  if (files.length !== 1)
    throw new ListFormatError(`${source}: expected one ${what} file, got ${files.length}`);
  return files[0]!;
}

/** Picks the loader from the source and the files' names and contents; the loaders check the structure. */
function parseListFiles(
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
      const companion = Object.values(OFAC_CSV).find((n) => n !== OFAC_CSV.sdn && n === baseName(file.name));
      if (companion)
        throw new ListFormatError(
          `ofac: ${fileName(file.name)} is a companion of sdn.csv; give sdn.csv or its directory`,
        );
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

/** Parses the files of an import and lays its rows out for the store. */
export function prepareList(req: ListImportRequest): PreparedList {
  const list = parseListFiles(req.source, req.files, req.published_at);
  return {
    source: list.source,
    published_at: list.published_at,
    files: req.files.map((f) => fileName(f.name)),
    entries_json: JSON.stringify(
      list.entries.map((e) => ({
        entry_id: e.entry_id,
        name: e.name,
        entry_type: e.type,
        programs: e.programs,
        aliases: e.aliases,
      })),
    ),
    addresses_json: JSON.stringify(
      list.addresses.map((a) => ({
        entry_id: a.entry_id,
        ticker: a.ticker,
        address: a.address,
        scope: a.scope,
        match_key: a.match_key,
      })),
    ),
    counts: {
      entry_count: list.entries.length,
      alias_count: list.entries.reduce((n, e) => n + e.aliases.length, 0),
      address_count: list.addresses.length,
      screenable_address_count: list.addresses.filter((a) => a.scope !== 'unscreenable').length,
    },
    warnings: list.warnings.slice(0, WARNINGS_SHOWN),
    warning_count: list.warnings.length,
  };
}

/** prepareList with a refused file as a value: what crosses back from a worker thread. */
export type PrepareOutcome = { ok: true; prepared: PreparedList } | { ok: false; message: string };

/** prepareList, run by list-prep-thread.ts on a worker thread. */
export function prepareOutcome(req: ListImportRequest): PrepareOutcome {
  try {
    return { ok: true, prepared: prepareList(req) };
  } catch (err) {
    if (err instanceof ListFormatError) return { ok: false, message: err.message };
    throw err;
  }
}
