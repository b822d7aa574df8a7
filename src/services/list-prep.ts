import {
  type CutRemarks,
  ListFormatError,
  type ListSource,
  mergeDuplicateEntries,
  nameNamelessEntries,
  normalizePublishedAt,
  parseEuXml,
  parseOfacCsv,
  parseOfacXml,
  parseUnXml,
  printable,
  publishedAfter,
  publishedBefore,
  quoted,
  REMARKS_CUT,
  type SanctionsList,
} from '../domain/screening/index.ts';
import type { PreparedList, PublishedAtFrom } from '../storage/sanctions-lists.repo.ts';

export type { PreparedList, PublishedAtFrom };

/** One file of an import, as read by the CLI (its base name and its text). */
export interface ListFile {
  name: string;
  content: string;
}

/**
 * What an import asks for: the source, its files, the operator's publication date for files that
 * carry none, and the main file's modification date (the CLI's `file_date`), which may date only the
 * first import of a source (the service checks that once the source is locked).
 */
export interface ListImportRequest {
  source: ListSource;
  files: ListFile[];
  published_at?: string | null;
  file_date?: string | null;
}

/** Warnings kept in an import's answer and its audit event; the count covers them all. */
export const WARNINGS_SHOWN = 100;

const OFAC_CSV = { sdn: 'sdn.csv', add: 'add.csv', alt: 'alt.csv', comments: 'sdn_comments.csv' } as const;

/** A file's name without its directory, as given (recorded with the import). */
const fileName = (name: string) => name.split(/[\\/]/).pop() ?? '';
/** The same, lower-cased: how files are recognised (SDN.CSV is sdn.csv). */
const baseName = (name: string) => fileName(name).toLowerCase();
const looksLikeXml = (content: string) => /^\uFEFF?\s*</.test(content);

/** What an import of a file that is no text is told, by the CLI and here alike. */
export const notTextMessage = (source: string, name: string) =>
  `${source}: ${name} is not a text file (NUL bytes or invalid UTF-8)`;

/**
 * Refuses a file that is no text before a loader reads it: a NUL, or a lone surrogate (what no
 * UTF-8 decodes to), is a binary file, and a loader's message about one pasted its bytes. The CLI
 * checks the bytes as it reads them (cli/lists.ts); this is for callers of the command that skip it.
 */
function refuseBinary(source: ListSource, file: ListFile): void {
  if (file.content.includes('\u0000') || /[\uD800-\uDFFF]/u.test(file.content))
    throw new ListFormatError(notTextMessage(source, fileName(file.name)));
}

/** An empty main file (white space at most) says so: a loader would call it rowless, or not XML. */
function refuseEmpty(source: ListSource, file: ListFile): void {
  if (file.content.replace(/^\uFEFF/, '').trim() === '')
    throw new ListFormatError(`${source}: ${fileName(file.name)} is empty; the held list was left unchanged`);
}

function single(source: ListSource, files: ListFile[], what: string): ListFile {
  if (files.length !== 1)
    throw new ListFormatError(`${source}: expected one ${what} file, got ${files.length}`);
  return files[0]!;
}

/**
 * A parsed list (its `published_at` the file's own date, null when it states none), the name of its
 * main file and where that format states its publication date.
 */
type Parsed = SanctionsList & { warnings?: string[]; file: string; dateField: string };

/** Entries named in a refusal, at most this many (the rest counted). */
const CUT_NAMED = 10;

/** `12300 (NAME), 28263 (NAME) and 3 more`: the entries a message is about, bounded. */
function entryNames(entries: readonly CutRemarks[]): string {
  const named = entries
    .slice(0, CUT_NAMED)
    .map((e) => `${printable(e.entry_id, 20)} (${printable(e.name || '?', 80)})`)
    .join(', ');
  return entries.length > CUT_NAMED ? `${named} and ${entries.length - CUT_NAMED} more` : named;
}

/**
 * What an OFAC CSV import does with remarks cut at REMARKS_CUT characters. Without sdn_comments.csv
 * it is refused: their continuation, and every address in it, would be missing, and those addresses
 * screened ALLOW with nothing said (the 2021 set: 81 of its 97 addresses). With it, an entry that
 * still has none is warned of: its field may be exactly that long, or the file of another day.
 */
function checkCutRemarks(
  sdnName: string,
  commentsName: string | undefined,
  cut: readonly CutRemarks[],
  warnings: string[],
  alone: boolean,
): void {
  if (cut.length === 0) return;
  const what =
    cut.length === 1
      ? `the Remarks of entry ${entryNames(cut)} fill`
      : `the Remarks of ${cut.length} entries fill`;
  if (commentsName === undefined) {
    const which = cut.length === 1 ? '' : ` (${entryNames(cut)})`;
    const how = alone
      ? `name it sdn.csv, put sdn_comments.csv beside it and import the two`
      : `put sdn_comments.csv beside ${sdnName} and import again`;
    throw new ListFormatError(
      `ofac: ${what} ${sdnName}'s field to its cut at ${REMARKS_CUT} characters${which}; OFAC continues them in sdn_comments.csv, which is missing, and addresses in the part cut off would not be screened. ${how[0]!.toUpperCase()}${how.slice(1)}; the held list was left unchanged`,
    );
  }
  for (const e of cut)
    warnings.push(
      `ofac: entry ${entryNames([e])} has Remarks of ${REMARKS_CUT} characters in ${sdnName}, the length OFAC cuts at, and no continuation in ${commentsName}: if they were cut, what follows (addresses included) is not loaded`,
    );
}

/**
 * Without alt.csv the aliases are missing: names screening matches primary names only. The set
 * is read "when present" (CONTRACT §7), so it is no refusal, but it is said.
 */
const noAliasesWarning = (sdnName: string) =>
  `ofac: no alt.csv beside ${sdnName}: no aliases were loaded, so names screening matches the entries' primary names only`;

/** The OFAC CSV set, its files named in messages as the operator gave them. */
function parseCsvSet(files: ListFile[]): Parsed {
  const byName = new Map(files.map((f) => [baseName(f.name), f]));
  const unknown = files.filter((f) => !Object.values(OFAC_CSV).includes(baseName(f.name) as never));
  if (unknown.length > 0)
    throw new ListFormatError(
      `ofac: unexpected file ${printable(fileName(unknown[0]!.name), 80)} beside sdn.csv (expected add.csv, alt.csv, sdn_comments.csv)`,
    );
  const content: Record<string, string> = {};
  const names: Record<string, string> = {};
  for (const [key, base] of Object.entries(OFAC_CSV)) {
    const file = byName.get(base);
    if (file === undefined) continue;
    content[key] = file.content;
    names[key] = fileName(file.name);
  }
  const sdn = byName.get(OFAC_CSV.sdn)!;
  refuseEmpty('ofac', sdn);
  const { cut_remarks, ...list } = parseOfacCsv(
    { sdn: sdn.content, add: content.add, alt: content.alt, comments: content.comments },
    { names },
  );
  const warnings: string[] = [];
  checkCutRemarks(names.sdn!, names.comments, cut_remarks, warnings, false);
  if (content.alt === undefined) warnings.push(noAliasesWarning(names.sdn!));
  return {
    ...list,
    warnings: [...warnings, ...list.warnings],
    file: names.sdn!,
    dateField: 'the OFAC CSV set carries none',
  };
}

/**
 * A lone OFAC file: sdn.xml, or a CSV under another name read as sdn.csv (its column check rejects
 * anything else). Its errors name the file given, and say how it was read.
 */
function parseLoneOfac(file: ListFile): Parsed {
  const name = fileName(file.name);
  const companion = Object.values(OFAC_CSV).find((n) => n !== OFAC_CSV.sdn && n === baseName(file.name));
  if (companion)
    throw new ListFormatError(`ofac: ${name} is a companion of sdn.csv; give sdn.csv or its directory`);
  refuseEmpty('ofac', file);
  if (looksLikeXml(file.content))
    return { ...parseOfacXml(file.content, name), file: name, dateField: 'no Publish_Date' };
  const asCsv = baseName(file.name) !== OFAC_CSV.sdn;
  try {
    const { cut_remarks, ...list } = parseOfacCsv({ sdn: file.content }, { names: { sdn: name } });
    const warnings: string[] = [];
    checkCutRemarks(name, undefined, cut_remarks, warnings, true);
    warnings.push(noAliasesWarning(name));
    return {
      ...list,
      warnings: [...warnings, ...list.warnings],
      file: name,
      dateField: 'the OFAC CSV set carries none',
    };
  } catch (err) {
    if (asCsv && err instanceof ListFormatError)
      throw new ListFormatError(`${err.message} (read as the OFAC sdn.csv format)`);
    throw err;
  }
}

/** Picks the loader from the source and the files' names and contents; the loaders check the structure. */
function loadList(source: ListSource, files: ListFile[]): Parsed {
  for (const file of files) refuseBinary(source, file);
  if (source === 'ofac') {
    if (files.some((f) => baseName(f.name) === OFAC_CSV.sdn)) return parseCsvSet(files);
    return parseLoneOfac(single(source, files, 'sdn.csv or sdn.xml'));
  }
  const file = single(source, files, 'XML');
  const name = fileName(file.name);
  refuseEmpty(source, file);
  if (!looksLikeXml(file.content))
    throw new ListFormatError(`${source}: ${name} is not XML; only the XML format of this list is read`);
  return source === 'un'
    ? { ...parseUnXml(file.content, name), file: name, dateField: 'no dateGenerated attribute' }
    : { ...parseEuXml(file.content, name), file: name, dateField: 'no generationDate attribute' };
}

/** What an import of a file without a date of its own says: `sdn.csv carries no publication date (…)`. */
const undatedPhrase = (list: Parsed) => `${list.file} carries no publication date (${list.dateField})`;

/** Whether two publication dates name the same publication: neither is older (publishedBefore). */
const samePublication = (a: string, b: string) => !publishedBefore(a, b) && !publishedBefore(b, a);

/** A publication date, named by where it came from, in a refusal of it. */
const DATE_ORIGIN: Record<PublishedAtFrom, (list: Parsed, date: string) => string> = {
  file: (list, date) => `the publication date ${list.file} states, ${date},`,
  operator: (_, date) => `the publication date given, ${date},`,
  file_date: (list, date) =>
    `the modification date of ${list.file}, ${date}, which stands for its publication date,`,
};

/**
 * Refuses a publication date to come (more than FUTURE_TOLERANCE_MS ahead of this host's clock):
 * a mistyped --published-at, or a file dated wrongly, would otherwise be held, and every genuine
 * import after it refused as a roll-back.
 */
function refuseFuture(
  source: ListSource,
  list: Parsed,
  date: { published_at: string; from: PublishedAtFrom },
  now: number,
): void {
  if (!publishedAfter(date.published_at, now)) return;
  throw new ListFormatError(
    `${source}: ${DATE_ORIGIN[date.from](list, date.published_at)} is in the future (it is now ${new Date(now).toISOString()}; a day ahead is allowed for clocks set apart); the held list was left unchanged`,
  );
}

/**
 * The publication date held with the list (CONTRACT §7: every list carries one) and where it came
 * from: the file's own ('file'; an operator's date that differs is warned of, not used), else the
 * operator's ('operator'), else the main file's modification date ('file_date': the service takes
 * it only when no list of the source is held), normalised (normalizePublishedAt). A list with none
 * is refused: held undated, no later import could tell whether it rolls the list back.
 */
function publicationDate(
  source: ListSource,
  list: Parsed,
  given: string | null,
  fileDate: string | null,
  warnings: string[],
): { published_at: string; from: PublishedAtFrom } {
  const stated = list.published_at;
  if (stated !== null) {
    const normal = normalizePublishedAt(stated);
    if (normal !== undefined) {
      if (given !== null && !samePublication(normal, given))
        warnings.push(
          `${source}: ${list.file} states its publication date (${normal}), which is held; --published-at ${printable(given)} was not used`,
        );
      return { published_at: normal, from: 'file' };
    }
    if (given === null)
      throw new ListFormatError(
        `${source}: ${list.file} gives its publication date as ${quoted(stated)}, not an ISO 8601 date; give it with --published-at YYYY-MM-DD`,
      );
    warnings.push(`${source}: ${list.file} gives its publication date as ${quoted(stated)}; ${given} used`);
  }
  if (given !== null) {
    const normal = normalizePublishedAt(given);
    if (normal !== undefined) return { published_at: normal, from: 'operator' };
    throw new ListFormatError(`${source}: published_at ${quoted(given)} is not an ISO 8601 date`);
  }
  if (fileDate !== null) {
    const normal = normalizePublishedAt(fileDate);
    if (normal !== undefined) {
      // The copy's date stands for the publication's: a true, earlier one given later reads as a
      // roll-back. Said with the import, with how to put it right.
      warnings.unshift(
        `${source}: dated by the file's modification date (${normal}), the files stating none; if the publication is older, import it again with --published-at <its date> --allow-older (an earlier date is otherwise refused as a roll-back)`,
      );
      return { published_at: normal, from: 'file_date' };
    }
    throw new ListFormatError(`${source}: file_date ${quoted(fileDate)} is not an ISO 8601 date`);
  }
  throw new ListFormatError(`${source}: ${undatedPhrase(list)}; give it with --published-at YYYY-MM-DD`);
}

/** Warnings about listed addresses that can never match: not valid addresses of their chain. */
function addressWarnings(source: ListSource, list: SanctionsList): string[] {
  const names = new Map(list.entries.map((e) => [e.entry_id, e.name]));
  return list.addresses
    .filter((a) => a.problem !== undefined)
    .map(
      (a) =>
        `${source}: entry ${printable(a.entry_id)} (${printable(names.get(a.entry_id) ?? '?', 80)}) lists ${a.ticker ? printable(a.ticker) : 'an'} address ${quoted(a.address, 64)}, ${a.problem}: it can never match and is not screened`,
    );
}

/**
 * Loads the files of an import, checks what the store needs, and collects the warnings; `now`
 * is the clock a publication date may not be ahead of.
 */
function parseListFiles(
  req: ListImportRequest,
  now: number,
): SanctionsList & {
  published_at: string;
  published_at_from: PublishedAtFrom;
  undated: string | null;
  warnings: string[];
} {
  const source = req.source;
  const list = loadList(source, req.files);
  if (list.entries.length === 0)
    throw new ListFormatError(`${source}: the file holds no entries; the held list was left unchanged`);
  const warnings = [...(list.warnings ?? [])];
  const date = publicationDate(source, list, req.published_at ?? null, req.file_date ?? null, warnings);
  refuseFuture(source, list, date, now);
  // One record per entry id (the store's key), each with a name (a hit shows it).
  const merged = mergeDuplicateEntries(source, list.entries);
  const named = nameNamelessEntries(source, merged.entries);
  const entries = named.entries;
  warnings.push(...merged.warnings, ...named.warnings);
  warnings.push(...addressWarnings(source, { ...list, entries }));
  return {
    source: list.source,
    published_at: date.published_at,
    published_at_from: date.from,
    undated: date.from === 'file_date' ? undatedPhrase(list) : null,
    entries,
    addresses: list.addresses,
    warnings,
  };
}

/** Parses the files of an import and lays its rows out for the store (`now`: see parseListFiles). */
export function prepareList(req: ListImportRequest, now = Date.now()): PreparedList {
  const list = parseListFiles(req, now);
  return {
    source: list.source,
    published_at: list.published_at,
    published_at_from: list.published_at_from,
    undated: list.undated,
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
