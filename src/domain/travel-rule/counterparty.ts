// Counterparty (beneficiary CASP) verification against the CASP directory, and the parser of
// the directory's CSV import (`mica casps import <csv>`, CONTRACT §7).
import { parse } from 'csv-parse/sync';
import { hasVisibleText } from '../visible-text.ts';
import { isValidLei } from './lei.ts';
import type { TravelRuleTransfer } from './transfer.ts';

export interface CaspEntry {
  lei: string;
  name: string;
  country: string;
}

export interface CaspRecord extends CaspEntry {
  /** Columns beyond lei, name and country, by header name. */
  extra: Record<string, string>;
}

export interface CaspDirectory {
  get(lei: string): CaspEntry | undefined;
}

/** Thrown by parseCaspDirectoryCsv with every problem found; `lines` are 1-based file lines. */
export class CaspDirectoryError extends Error {
  override readonly name = 'CaspDirectoryError';
  constructor(
    readonly problems: string[],
    readonly lines: number[],
  ) {
    super(`invalid CASP directory: ${problems.join('; ')}`);
  }
}

const REQUIRED_COLUMNS = ['lei', 'name', 'country'] as const;

/** A CASP name reduced for comparison: case folded and every white-space character removed. */
export function normaliseCaspName(name: string): string {
  return name.normalize('NFC').replace(/\s+/gu, '').toLowerCase();
}

/** True only when casp_lei is a valid LEI listed in the directory and casp_name, if given, matches its name. */
export function verifyCounterparty(transfer: TravelRuleTransfer, directory: CaspDirectory): boolean {
  const { casp_lei, casp_name } = transfer.beneficiary;
  if (casp_lei === undefined || !isValidLei(casp_lei)) return false;
  const entry = directory.get(casp_lei);
  if (!entry) return false;
  if (casp_name === undefined || !hasVisibleText(casp_name)) return true;
  return normaliseCaspName(casp_name) === normaliseCaspName(entry.name);
}

/** An in-memory CaspDirectory over parsed records (the storage layer may offer its own). */
export function caspDirectoryFrom(records: readonly CaspRecord[]): CaspDirectory & { readonly size: number } {
  const byLei = new Map(records.map((r) => [r.lei, r]));
  return { get: (lei) => byLei.get(lei), size: byLei.size };
}

interface ParsedRow {
  record: string[];
  info: { lines: number };
}

function readCsv(text: string): ParsedRow[] {
  try {
    // Line endings are unified first so that csv-parse's line counter matches an editor's.
    const rows = parse(text.replace(/\r\n?/g, '\n'), {
      bom: true,
      info: true,
      trim: true,
      skip_empty_lines: true,
    }) as unknown as ParsedRow[];
    return rows;
  } catch (err) {
    const line = (err as { lines?: unknown }).lines;
    const where = typeof line === 'number' ? [line] : [];
    const at = where.length > 0 ? `line ${where[0]}: ` : '';
    throw new CaspDirectoryError([`${at}${(err as Error).message}`], where);
  }
}

// csv-parse reports the line a record ends on; a quoted field with new lines started earlier.
function startLine(row: ParsedRow): number {
  let embedded = 0;
  for (const field of row.record) if (field.includes('\n')) embedded += field.split('\n').length - 1;
  return row.info.lines - embedded;
}

function readHeader(row: ParsedRow | undefined): string[] {
  if (!row) throw new CaspDirectoryError(['empty file: a header with lei,name,country is required'], []);
  const header = row.record.map((h) => h.toLowerCase());
  const problems: string[] = [];
  const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) problems.push(`header lacks column(s): ${missing.join(', ')}`);
  const repeated = header.filter((h, i) => header.indexOf(h) !== i);
  if (repeated.length > 0) problems.push(`header repeats column(s): ${[...new Set(repeated)].join(', ')}`);
  if (header.some((h) => h === '')) problems.push('header has an empty column name');
  if (problems.length > 0) throw new CaspDirectoryError(problems, [startLine(row)]);
  return header;
}

function lineList(lines: number[]): string {
  return `${lines.length === 1 ? 'line' : 'lines'} ${lines.join(', ')}`;
}

/** Parses the CASP directory CSV (header with at least lei,name,country); throws CaspDirectoryError listing bad lines. */
export function parseCaspDirectoryCsv(text: string): CaspRecord[] {
  const [headerRow, ...rows] = readCsv(text);
  const header = readHeader(headerRow);
  const badLei: number[] = [];
  const noName: number[] = [];
  const duplicates: number[] = [];
  const firstSeen = new Map<string, number>();
  const records: CaspRecord[] = [];

  // Column positions once, not per row (a directory may have hundreds of thousands of rows).
  const leiAt = header.indexOf('lei');
  const nameAt = header.indexOf('name');
  const countryAt = header.indexOf('country');
  // Extra columns keep the header's own spelling; the three known ones are matched case-insensitively.
  const extras = (headerRow?.record ?? []).flatMap((original, i) =>
    (REQUIRED_COLUMNS as readonly string[]).includes(header[i] ?? '') ? [] : [{ original, i }],
  );

  for (const row of rows) {
    const line = startLine(row);
    const cell = (i: number) => row.record[i] ?? '';
    const lei = cell(leiAt);
    const name = cell(nameAt);
    if (!isValidLei(lei)) badLei.push(line);
    else if (firstSeen.has(lei)) duplicates.push(line);
    else firstSeen.set(lei, line);
    if (name === '') noName.push(line);

    const extra: Record<string, string> = {};
    for (const { original, i } of extras) extra[original] = cell(i);
    records.push({ lei, name, country: cell(countryAt), extra });
  }

  const problems: string[] = [];
  if (badLei.length > 0) problems.push(`invalid LEI on ${lineList(badLei)}`);
  if (noName.length > 0) problems.push(`missing name on ${lineList(noName)}`);
  if (duplicates.length > 0) problems.push(`duplicate LEI on ${lineList(duplicates)}`);
  if (problems.length > 0) {
    const lines = [...new Set([...badLei, ...noName, ...duplicates])].sort((a, b) => a - b);
    throw new CaspDirectoryError(problems, lines);
  }
  return records;
}
