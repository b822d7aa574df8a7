import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.ts';

// A schedule croner refuses must stop the start before anything is created: the first start of an
// empty store creates the demo client and prints its key once, and a start that then failed on the
// schedule used that up without showing the key.
describe('cron settings', () => {
  it('accepts patterns and off, and refuses what croner cannot read, naming the variable', () => {
    for (const v of ['*/15 * * * *', '17 2 * * *', 'off', '0 0 * * MON-FRI'])
      assert.equal(loadConfig({ STR_SWEEP_CRON: v }).STR_SWEEP_CRON, v);
    for (const [key, v] of [
      ['STR_SWEEP_CRON', 'every 5 minutes'],
      ['AUDIT_MAINTENANCE_CRON', '61 * * * *'],
    ] as const)
      assert.throws(
        () => loadConfig({ [key]: v }),
        (e: Error) => e instanceof ConfigError && e.message.includes(key),
        `${key}=${v}`,
      );
  });
});
