// Entry of the list-preparation worker. A worker thread starts without the TypeScript loader the
// main thread was given (`--import tsx`), so it registers it before loading the TypeScript module.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./list-prep.worker.ts', import.meta.url).href);
