import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { notTextMessage } from '../services/list-prep.ts';
import { LIST_IMPORT_MAX_BYTES } from '../services/sanctions-lists.service.ts';
import { cliPath } from './paths.ts';
import { readUtf8 } from './read-text.ts';

const OFAC_CSV_FILES = ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv'];

interface ReadFiles {
  files: Array<{ name: string; content: string }>;
  /**
   * Modification date of the main file (YYYY-MM-DD, UTC): sent as `file_date`, which the service
   * takes as the publication date of a first import only (a copy's date is not the publication's).
   */
  modified: string;
}

function stat(path: string) {
  try {
    return statSync(path);
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** A list file's text; a file that is no UTF-8 text is refused here, by name (see readUtf8). */
function readText(source: string, path: string): string {
  const text = readUtf8(path);
  if (text === undefined) throw new Error(notTextMessage(source, basename(path)));
  return text;
}

/** Finds a file in a directory whatever the case of its name. */
function inDir(dir: string, name: string): string | undefined {
  const exact = join(dir, name);
  if (existsSync(exact)) return exact;
  const upper = join(dir, name.toUpperCase());
  return existsSync(upper) ? upper : undefined;
}

/**
 * The files of an import: for OFAC a directory or its sdn.csv (the companions add.csv, alt.csv
 * and sdn_comments.csv are read when present) or one XML file; for EU and UN one file.
 */
export function readListFiles(source: string, path: string): ReadFiles {
  const info = stat(path);
  let paths: string[];
  if (source === 'ofac') {
    const dir = info.isDirectory() ? path : dirname(path);
    const isCsvSet = info.isDirectory() ? inDir(dir, 'sdn.csv') : basename(path).toLowerCase() === 'sdn.csv';
    if (isCsvSet) {
      paths = OFAC_CSV_FILES.map((f) => inDir(dir, f)).filter((p): p is string => p !== undefined);
    } else if (info.isDirectory()) {
      const xml = inDir(dir, 'sdn.xml');
      if (!xml) throw new Error(`${path}: no sdn.csv or sdn.xml in this directory`);
      paths = [xml];
    } else {
      paths = [path];
    }
  } else {
    if (info.isDirectory()) throw new Error(`${path} is a directory; give the ${source} list's XML file`);
    paths = [path];
  }
  const total = paths.reduce((n, p) => n + stat(p).size, 0);
  if (total > LIST_IMPORT_MAX_BYTES) throw new Error(`${path}: the files exceed 128 MiB`);
  return {
    files: paths.map((p) => ({ name: basename(p), content: readText(source, p) })),
    modified: stat(paths[0]!).mtime.toISOString().slice(0, 10),
  };
}

const isoDate = (v: string) => {
  if (!/^\d{4}-\d{2}-\d{2}([T ].*)?$/.test(v) || Number.isNaN(Date.parse(v)))
    throw new InvalidArgumentError('must be an ISO 8601 date (YYYY-MM-DD) or date-time');
  return v;
};

/** `lists import <ofac|eu|un> <path>` and `lists status`. */
export function registerListCommands(
  program: Command,
  found: (inv: { name: string; args: Record<string, unknown> }) => void,
): void {
  const lists = program.command('lists').description('sanctions lists held for wallet and name screening');
  lists
    .command('import <source> <path>')
    .description(
      'replace a held list: ofac (directory, sdn.csv with its companions, or sdn.xml), eu or un (XML)',
    )
    .option(
      '--published-at <date>',
      'publication date, for formats that carry none (OFAC CSV; required once an ofac list is held, the file date dating only a first import)',
      isoDate,
    )
    .option(
      '--allow-older',
      'replace the held list even when this one was published earlier (a deliberate roll-back)',
    )
    .action((source: string, path: string, o: { publishedAt?: string; allowOlder?: boolean }) => {
      if (!['ofac', 'eu', 'un'].includes(source))
        throw new Error(`unknown list source ${source}: expected ofac, eu or un`);
      // Relative to where the operator ran the command, not the package directory (npm run).
      const { files, modified } = readListFiles(source, cliPath(path));
      // Only the OFAC CSV set lacks a date; the XML formats carry theirs, which wins. Its file date
      // goes apart from the operator's: the service takes it for a first import of the source only.
      const csvSet = files.some((f) => f.name.toLowerCase() === 'sdn.csv');
      const allow_older = o.allowOlder === true;
      found({
        name: 'lists.import',
        args: {
          source,
          files,
          ...(o.publishedAt !== undefined ? { published_at: o.publishedAt } : {}),
          ...(csvSet && o.publishedAt === undefined ? { file_date: modified } : {}),
          ...(allow_older ? { allow_older } : {}),
        },
      });
    });
  lists
    .command('status')
    .description(
      'the held lists: source, version, publication date, counts, and the warnings of the import that put each there',
    )
    .action(() => found({ name: 'lists.status', args: {} }));
}
