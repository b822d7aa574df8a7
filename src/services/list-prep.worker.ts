// The worker thread of list-prep-thread.ts: parses one import and posts the prepared list back.
import { parentPort, workerData } from 'node:worker_threads';
import { ListFormatError } from '../domain/screening/index.ts';
import { type ListImportRequest, prepareList } from './list-prep.ts';

try {
  parentPort!.postMessage({ ok: true, prepared: prepareList(workerData as ListImportRequest) });
} catch (err) {
  parentPort!.postMessage({
    ok: false,
    format: err instanceof ListFormatError,
    message: err instanceof Error ? err.message : String(err),
  });
}
