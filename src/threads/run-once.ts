import { Worker } from 'node:worker_threads';

type Answer<O> = { ok: true; output: O } | { ok: false; message: string };

/**
 * Runs the exported function `name` of the module at `module` once, on a new worker thread, with
 * `input` (structured-cloned there, the output cloned back), and resolves with what it returns.
 * For rare, heavy work that would otherwise hold the main thread and leave its garbage on the
 * main heap: parsing a list import, or a multi-megabyte request body. Starting the thread and
 * its TypeScript loader takes a few hundred milliseconds of that thread's time, and about a
 * millisecond of the caller's. A task reports expected failures in its return value: an exception
 * crosses as a plain Error with its message.
 */
export function runOnce<I, O>(module: URL, name: string, input: I): Promise<O> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./worker-entry.mjs', import.meta.url), {
      workerData: { module: module.href, name, input },
    });
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      f();
      void worker.terminate();
    };
    worker.once('message', (a: Answer<O>) =>
      settle(() =>
        a.ok ? resolve(a.output) : reject(new Error(`${name} on a worker thread: ${a.message}`)),
      ),
    );
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) =>
      settle(() =>
        reject(new Error(`${name} on a worker thread: it ended (exit ${code}) without an answer`)),
      ),
    );
  });
}
