// A CASP directory import on a worker thread of its own (`casps import`, up to 64 MiB of CSV), and
// how its text crosses between the threads. Parsing on the main thread held every request: csv-parse
// reads 120,000 rows (7.5 MB) in about 2 s, 700,000 rows (63.6 MB) in 20 s or more. Cloning that much
// text in a message would hold it too (a 60 MB string takes some 250 ms to serialise and as long to
// read back), so both ways the text goes in a SharedArrayBuffer, which crosses without a copy: the
// main thread writes the CSV into one in slices, and reads the parsed rows out of one in slices.
import { Buffer } from 'node:buffer';
import { sha256Hex } from '../domain/sha256.ts';
import { CaspDirectoryError, type CaspRecord, parseCaspDirectoryCsv } from '../domain/travel-rule/index.ts';
import { runOnce } from '../threads/run-once.ts';

/** Text in shared memory: Latin-1 when every code unit fits in a byte (the usual case), else UTF-16LE. */
export interface SharedText {
  bytes: Uint8Array;
  encoding: 'latin1' | 'utf16le';
}

/**
 * Parsed rows as one shared text and where each field ends in it (in code units), row by row:
 * lei, name, country, then the extra columns in `columns` order.
 */
export interface PackedRecords {
  columns: string[];
  rows: number;
  text: SharedText;
  ends: Uint32Array;
}

/** What crosses back from the worker: the rows and the digest of the CSV, or the parser's refusal. */
export type CaspPrepOutcome =
  | { ok: true; sha256: string; records: PackedRecords }
  | { ok: false; problems: string[]; lines: number[] };

/** Code units written per slice: some 0.1 ms as Latin-1, about 1 ms as UTF-16. */
const WRITE_SLICE = 256 * 1024;
/** Rows read per slice, fewer when they are long: a slice stays within a couple of milliseconds. */
const READ_SLICE_ROWS = 1024;
const READ_SLICE_CHARS = 128 * 1024;

/** A code unit beyond Latin-1 (without the u flag a regex reads code units: surrogates too). */
const NOT_LATIN1 = /[\u0100-\uffff]/;

const noPause = async () => {};

/** The `extra` of every row of a file without extra columns: one object, not one per row. */
const NO_EXTRA: Record<string, string> = Object.freeze({});

/** Copies `text` into shared memory, `pause` awaited between slices (none on a worker). */
export async function shareText(text: string, pause: () => Promise<void> = noPause): Promise<SharedText> {
  let latin1 = true;
  for (let i = 0; i < text.length && latin1; i += WRITE_SLICE) {
    latin1 = !NOT_LATIN1.test(text.slice(i, i + WRITE_SLICE));
    await pause();
  }
  const encoding = latin1 ? 'latin1' : 'utf16le';
  const unit = latin1 ? 1 : 2;
  const bytes = new Uint8Array(new SharedArrayBuffer(text.length * unit));
  const buf = Buffer.from(bytes.buffer);
  // UTF-16LE keeps every code unit as it is (a surrogate pair split between slices too).
  for (let i = 0; i < text.length; i += WRITE_SLICE) {
    buf.write(text.slice(i, i + WRITE_SLICE), i * unit, encoding);
    await pause();
  }
  return { bytes, encoding };
}

function readShared(text: SharedText, from = 0, to?: number): string {
  const unit = text.encoding === 'latin1' ? 1 : 2;
  const buf = Buffer.from(text.bytes.buffer, text.bytes.byteOffset, text.bytes.byteLength);
  return buf.toString(text.encoding, from * unit, to === undefined ? undefined : to * unit);
}

/** Packs parsed rows for the way back (on the worker). */
export async function packRecords(records: readonly CaspRecord[]): Promise<PackedRecords> {
  const columns = records.length > 0 ? Object.keys(records[0]!.extra) : [];
  const fields: string[] = [];
  const ends = new Uint32Array(new SharedArrayBuffer(records.length * (3 + columns.length) * 4));
  let at = 0;
  let k = 0;
  const add = (s: string) => {
    fields.push(s);
    at += s.length;
    ends[k++] = at;
  };
  for (const r of records) {
    add(r.lei);
    add(r.name);
    add(r.country);
    for (const c of columns) add(r.extra[c] ?? '');
  }
  return { columns, rows: records.length, text: await shareText(fields.join('')), ends };
}

/** A string of its own: concatenation then slice flattens it into a new string (see unpackRecords). */
const detached = (s: string): string => (s.length < 13 ? s : ` ${s}`.slice(1));

/**
 * Reads packed rows back into records, a slice at a time with `pause` awaited between slices:
 * `each` is called with every record in order.
 */
export async function unpackRecords(
  packed: PackedRecords,
  each: (record: CaspRecord) => void,
  pause: () => Promise<void> = noPause,
): Promise<void> {
  const { columns, rows, ends } = packed;
  const width = 3 + columns.length;
  const endOfRow = (r: number) => (r === 0 ? 0 : ends[r * width - 1]!);
  for (let r0 = 0; r0 < rows; ) {
    const base = endOfRow(r0);
    let r1 = r0 + 1;
    while (r1 < rows && r1 - r0 < READ_SLICE_ROWS && endOfRow(r1) - base < READ_SLICE_CHARS) r1++;
    // One string for the slice; the fields are substrings of it.
    const chunk = readShared(packed.text, base, endOfRow(r1));
    let k = r0 * width;
    let from = 0;
    const next = () => {
      const to = ends[k++]! - base;
      const s = chunk.slice(from, to);
      from = to;
      return s;
    };
    for (let r = r0; r < r1; r++) {
      // What the directory keeps (lei, name, country) is copied out: V8 makes a substring of 13 or
      // more characters a view of its parent, and the kept LEIs and names held every slice's text
      // alive, extra columns included (20,000 rows with 1 KB notes: 4 MB held before, 25 MB after).
      const lei = detached(next());
      const name = detached(next());
      const country = next();
      const extra: Record<string, string> = columns.length === 0 ? NO_EXTRA : {};
      for (const c of columns) extra[c] = next();
      each({ lei, name, country, extra });
    }
    r0 = r1;
    await pause();
  }
}

/** The worker's task: parses the shared CSV and digests it (SHA-256 of its UTF-8, as sha256Hex). */
export async function prepareCaspImport(csv: SharedText): Promise<CaspPrepOutcome> {
  const text = readShared(csv);
  const sha256 = sha256Hex(text);
  let records: CaspRecord[];
  try {
    records = parseCaspDirectoryCsv(text);
  } catch (err) {
    if (err instanceof CaspDirectoryError) return { ok: false, problems: err.problems, lines: err.lines };
    throw err;
  }
  return { ok: true, sha256, records: await packRecords(records) };
}

/**
 * Parses an import on a worker thread of its own (one per import: imports are rare). The main
 * thread only copies the text into shared memory, in slices with `pause` awaited between them.
 * Throws CaspDirectoryError as parseCaspDirectoryCsv does.
 */
export async function prepareCaspImportOffThread(
  csv: string,
  pause: () => Promise<void>,
): Promise<{ sha256: string; records: PackedRecords }> {
  const shared = await shareText(csv, pause);
  const outcome = await runOnce<SharedText, CaspPrepOutcome>(
    new URL(import.meta.url),
    'prepareCaspImport',
    shared,
  );
  if (!outcome.ok) throw new CaspDirectoryError(outcome.problems, outcome.lines);
  return outcome;
}
