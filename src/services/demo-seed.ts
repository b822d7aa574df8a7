import type { Deps } from '../deps.ts';

/** On the first start of an empty store, creates the client `demo` and one API key for it. */
export async function seedDemoClient(deps: Pick<Deps, 'clients' | 'keys' | 'config'>) {
  if ((await deps.clients.count()) > 0) return undefined;
  try {
    await deps.clients.create('demo', { name: 'Demo CASP', actor: 'system:first-start' });
  } catch (e) {
    // Another instance starting on the same new database seeded it a moment before: not a failure.
    if ((await deps.clients.count()) > 0) return undefined;
    throw e;
  }
  return deps.keys.create('demo', {
    role: 'admin',
    sandbox: deps.config.MICA_ENVIRONMENT === 'sandbox',
    actor: 'system:first-start',
  });
}
