import { parse } from 'csv-parse/sync';
import {
  type EntryType,
  type ListedAddress,
  ListFormatError,
  listedAddress,
  type SanctionsEntry,
  type SanctionsList,
} from './model.ts';
import { extractRemarkAddresses } from './remarks.ts';
import { asText, clean, parserMessage, quoted, uniq } from './text.ts';

/** The legacy OFAC CSV set: sdn.csv is required, the three companions are optional. */
export interface OfacCsvFiles {
  sdn: string | Uint8Array;
  add?: string | Uint8Array;
  alt?: string | Uint8Array;
  comments?: string | Uint8Array;
}

export interface OfacCsvOptions {
  /** The CSV set carries no date; the caller supplies it (e.g. from the download). */
  published_at?: string | null;
  /**
   * The files' names as the operator gave them, for messages (default sdn.csv, add.csv, …): an
   * error about a file named otherwise must name the file the operator can find.
   */
  names?: Partial<Record<keyof OfacCsvFiles, string>>;
}

/** An entry whose Remarks reach the cut and have no continuation in the set read. */
export interface CutRemarks {
  entry_id: string;
  name: string;
}

/**
 * The parsed list plus what was skipped, so an import can report it. `cut_remarks`: the entries
 * whose Remarks fill sdn.csv's field to the cut (REMARKS_CUT) and have no continuation among the
 * sdn_comments.csv rows read (none when that file was not given): their remarks, and any address
 * in the part cut off, are incomplete. The parser reports them; the import decides (list-prep.ts).
 */
export type OfacCsvResult = SanctionsList & { warnings: string[]; cut_remarks: CutRemarks[] };

/**
 * OFAC cuts the Remarks field of sdn.csv at exactly 1,000 characters and continues it in
 * sdn_comments.csv: a field of that length was (almost surely) cut. Counted in characters (code
 * points), as OFAC's own files bear out (every continued entry of the 2021 and 2025 sets).
 */
export const REMARKS_CUT = 1000;

/** Whether a Remarks field reaches the cut; the cheap UTF-16 length rules out nearly every field. */
const reachesCut = (remarks: string) => remarks.length >= REMARKS_CUT && [...remarks].length >= REMARKS_CUT;

/** Column counts of the headerless files, from OFAC's data specification. */
const COLUMNS = { sdn: 12, add: 6, alt: 5, comments: 2 } as const;
const FILE_NAMES = { sdn: 'sdn.csv', add: 'add.csv', alt: 'alt.csv', comments: 'sdn_comments.csv' } as const;

/** OFAC writes an empty cell as the unquoted token `-0- ` (with a trailing space). */
function cell(value: string | undefined): string {
  const v = (value ?? '').trim();
  return v === '-0-' ? '' : v;
}

/** Remarks halves are joined byte for byte: trimming could glue `XBT ` + `1abc` into `XBT1abc`. */
function rawCell(value: string | undefined): string {
  return (value ?? '').trim() === '-0-' ? '' : (value ?? '');
}

/** Drops trailing line breaks and the DOS EOF byte 0x1A. */
function stripDosEof(text: string): string {
  let end = text.length;
  while (end > 0) {
    const c = text.charCodeAt(end - 1);
    if (c !== 0x1a && c !== 0x0d && c !== 0x0a) break;
    end--;
  }
  return text.slice(0, end);
}

function readRows(input: string | Uint8Array, file: keyof typeof COLUMNS, name: string): string[][] {
  // Full downloads end with a DOS EOF byte (0x1A) after the last CRLF: a bogus last row otherwise.
  const text = stripDosEof(asText(input, name));
  if (text === '') return [];
  let rows: string[][];
  try {
    rows = parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    throw new ListFormatError(`${name} is not valid CSV: ${parserMessage((err as Error).message)}`);
  }
  const want = COLUMNS[file];
  rows.forEach((row, i) => {
    if (row.length !== want) {
      throw new ListFormatError(`${name} row ${i + 1}: expected ${want} columns, found ${row.length}`);
    }
    if (!/^\d+$/.test(cell(row[0]))) {
      throw new ListFormatError(
        `${name} row ${i + 1}: ent_num ${quoted(row[0] ?? '')} is not a number (a header row?)`,
      );
    }
  });
  return rows;
}

function entryType(sdnType: string): EntryType {
  // OFAC never writes "entity": an entity's SDN_Type is the empty token.
  switch (sdnType.toLowerCase()) {
    case '':
    case 'entity':
      return 'entity';
    case 'individual':
      return 'individual';
    case 'vessel':
      return 'vessel';
    case 'aircraft':
      return 'aircraft';
    default:
      return 'other';
  }
}

/** `SDGT] [IFSR` is `[SDGT] [IFSR]` with the outer brackets removed. */
export function splitPrograms(field: string): string[] {
  return uniq(field.split(/\]\s*\[/).map((p) => p.replace(/[[\]]/g, '').trim()));
}

/**
 * Parses OFAC's legacy CSV set (sdn, add, alt, sdn_comments) into the common model. A repeated
 * ent_num gives a second record, which the import merges into the first (mergeDuplicateEntries).
 */
export function parseOfacCsv(files: OfacCsvFiles, options: OfacCsvOptions = {}): OfacCsvResult {
  if (!files || files.sdn === undefined) throw new ListFormatError('OFAC CSV set: sdn.csv is required');
  const warnings: string[] = [];
  const names = { ...FILE_NAMES, ...options.names };
  const sdnRows = readRows(files.sdn, 'sdn', names.sdn);
  if (sdnRows.length === 0) throw new ListFormatError(`${names.sdn} holds no rows`);

  // Remarks are cut at 1000 characters and continue in sdn_comments.csv, joined with no separator.
  const continuation = new Map<string, string>();
  for (const row of files.comments === undefined
    ? []
    : readRows(files.comments, 'comments', names.comments)) {
    const id = cell(row[0]);
    continuation.set(id, (continuation.get(id) ?? '') + rawCell(row[1]));
  }

  const aliases = new Map<string, string[]>();
  for (const row of files.alt === undefined ? [] : readRows(files.alt, 'alt', names.alt)) {
    const id = cell(row[0]);
    const name = clean(cell(row[3]));
    if (name === '') continue;
    const list = aliases.get(id) ?? [];
    list.push(name);
    aliases.set(id, list);
  }
  // add.csv holds postal addresses, which the model does not carry; it is still checked for shape.
  if (files.add !== undefined) readRows(files.add, 'add', names.add);

  const entries: SanctionsEntry[] = [];
  const addresses: ListedAddress[] = [];
  const cut_remarks: CutRemarks[] = [];
  const ids = new Set<string>();
  for (const row of sdnRows) {
    const entry_id = cell(row[0]);
    // A repeated ent_num is kept as a record of its own, with its addresses, to be merged into
    // the first by the import like every loader's (mergeDuplicateEntries); the continuation of
    // the remarks, keyed by ent_num alone, is read once, with the first.
    const continued = ids.has(entry_id) ? '' : (continuation.get(entry_id) ?? '');
    ids.add(entry_id);
    const name = clean(cell(row[1]));
    if (!continuation.has(entry_id) && reachesCut(rawCell(row[11]))) cut_remarks.push({ entry_id, name });
    entries.push({
      entry_id,
      name,
      type: entryType(cell(row[2])),
      programs: splitPrograms(cell(row[3])),
      aliases: uniq(aliases.get(entry_id) ?? []),
    });
    const remarks = rawCell(row[11]) + continued;
    for (const { ticker, address } of extractRemarkAddresses(remarks)) {
      addresses.push(listedAddress(entry_id, ticker, address));
    }
  }
  for (const id of aliases.keys()) {
    if (!ids.has(id)) warnings.push(`${names.alt}: aliases for unknown ent_num ${id} ignored`);
  }
  for (const id of continuation.keys()) {
    if (!ids.has(id)) warnings.push(`${names.comments}: remarks for unknown ent_num ${id} ignored`);
  }
  return {
    source: 'ofac',
    published_at: options.published_at ?? null,
    entries,
    addresses,
    warnings,
    cut_remarks,
  };
}
