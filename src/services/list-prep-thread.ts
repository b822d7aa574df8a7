import { ListFormatError } from '../domain/screening/index.ts';
import { runOnce } from '../threads/run-once.ts';
import type { ListImportRequest, PreparedList, PrepareOutcome } from './list-prep.ts';

/**
 * Parses an import on a worker thread of its own. Parsing a list holds a thread for a long time
 * (the 2021 OFAC SDN files: about 100–170 ms, the UN XML 120–180 ms, the EU XML longer still) and
 * leaves megabytes of garbage behind. On the main thread both fell on the requests being served:
 * every answer of the moment waited for the parse, and a later full collection swept its garbage.
 * On a worker the main thread only receives the prepared rows (a few strings), and the worker's
 * heap goes with the worker. One worker per import: imports are rare.
 */
export async function prepareListOffThread(req: ListImportRequest): Promise<PreparedList> {
  const outcome = await runOnce<ListImportRequest, PrepareOutcome>(
    new URL('./list-prep.ts', import.meta.url),
    'prepareOutcome',
    req,
  );
  if (!outcome.ok) throw new ListFormatError(outcome.message);
  return outcome.prepared;
}
