// Entry of every one-shot worker thread (run-once.ts). A worker starts without the TypeScript
// loader the main thread was given (`--import tsx`), so it registers it, then runs one exported
// function of a TypeScript module on the input and posts back what it returns.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { module, name, input } = workerData;
try {
  const task = (await import(module))[name];
  if (typeof task !== 'function') throw new Error(`${module} exports no function ${name}`);
  parentPort.postMessage({ ok: true, output: await task(input) });
} catch (err) {
  parentPort.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
}
