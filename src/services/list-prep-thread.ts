import { Worker } from 'node:worker_threads';
import { ListFormatError } from '../domain/screening/index.ts';
import type { ListImportRequest, PreparedList } from './list-prep.ts';

type Answer = { ok: true; prepared: PreparedList } | { ok: false; format: boolean; message: string };

/**
 * Parses an import on a worker thread of its own. Parsing a list holds a thread for a long time
 * (the 2021 OFAC SDN files: about 100–170 ms, the UN XML 120–180 ms, the EU XML longer still) and
 * leaves megabytes of garbage behind. On the main thread both fell on the requests being served:
 * every answer of the moment waited for the parse, and a later full collection swept its garbage.
 * On a worker the main thread only receives the prepared rows (a few strings), and the worker's
 * heap goes with the worker. One worker per import: imports are rare.
 */
export function prepareListOffThread(req: ListImportRequest): Promise<PreparedList> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./list-prep.worker.mjs', import.meta.url), { workerData: req });
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      f();
      void worker.terminate();
    };
    worker.once('message', (a: Answer) =>
      settle(() => {
        if (a.ok) resolve(a.prepared);
        else reject(a.format ? new ListFormatError(a.message) : new Error(`list import: ${a.message}`));
      }),
    );
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) =>
      settle(() =>
        reject(new Error(`list import: the parsing thread ended (exit ${code}) without an answer`)),
      ),
    );
  });
}
