import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { CASP_IMPORT_MAX_CHARS } from '../services/casp-directory.service.ts';
import { cliPath } from './paths.ts';
import { readUtf8 } from './read-text.ts';

/** Reads an import file as text, refusing one the import would refuse anyway. */
export function readImportFile(file: string): string {
  let info: ReturnType<typeof statSync>;
  try {
    info = statSync(file);
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (info.isDirectory()) throw new Error(`${file} is a directory; give the CSV file`);
  const size = info.size;
  if (size > CASP_IMPORT_MAX_CHARS) throw new Error(`${file} is larger than 64 MiB`);
  const text = readUtf8(file);
  if (text === undefined)
    throw new Error(
      `${file} is not a text file (NUL bytes or invalid UTF-8); save it as UTF-8 and import it again`,
    );
  return text;
}

/** `casps import <file>`: the CLI reads the file and sends its text, so it works through a server too. */
export function registerCaspCommands(
  program: Command,
  found: (inv: { name: string; args: Record<string, unknown> }) => void,
): void {
  const casps = program.command('casps').description('the CASP directory (travel-rule counterparties)');
  casps
    .command('import <file>')
    .description('replace the directory with a CSV (header with at least lei,name,country)')
    .option('--source <name>', 'recorded name of the source (default: the file name)')
    .action((file: string, o: { source?: string }) =>
      found({
        name: 'casps.import',
        args: { csv: readImportFile(cliPath(file)), source: o.source ?? basename(file) },
      }),
    );
}
