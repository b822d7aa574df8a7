import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { leiCheckDigits } from '../../src/domain/travel-rule/index.ts';
import { createCaspDirectoryService } from '../../src/services/casp-directory.service.ts';
import { createCaspDirectoryRepo } from '../../src/storage/casp-directory.repo.ts';
import type { DatabaseHandle } from '../../src/storage/db.ts';
import { createOperatorAuditRepo } from '../../src/storage/operator-audit.repo.ts';
import { migrateSchema } from '../../src/storage/schema-owner.ts';
import { freshDatabase } from '../helpers/harness.ts';

const lei = (i: number) => {
  const base = `549300${String(i).padStart(12, '0')}`;
  return `${base}${leiCheckDigits(base)}`;
};
const KEPT = lei(1);
const REMOVED = lei(2);
const csvOf = (...leis: string[]) => `lei,name,country\n${leis.map((l) => `${l},CASP ${l},DE`).join('\n')}\n`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two instances on one store, as two servers on one PostgreSQL (or a server and the CLI): an
 * import made through one must be what the other answers from, with no answer resting on a
 * directory unconfirmed for longer than the refresh interval.
 */
describe('CASP directory across instances', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await freshDatabase();
    await migrateSchema(database, undefined);
  });
  after(async () => {
    await database.close();
  });

  function instance(clock: { now: number }) {
    return createCaspDirectoryService({
      repo: createCaspDirectoryRepo(database.db),
      audit: createOperatorAuditRepo(database.db),
      refreshMs: 5000,
      now: () => clock.now,
    });
  }

  it('the first lookup after an idle spell answers from the directory imported elsewhere', async () => {
    const clock = { now: 1_000_000 };
    const a = instance(clock);
    const b = instance(clock);
    await a.import(csvOf(KEPT, REMOVED), { source: 'first.csv', actor: 'test' });
    const before = await b.directory();
    assert.ok(before.get(REMOVED));

    // Another instance (or the CLI) removes a CASP; b has been idle for a whole interval.
    const second = await a.import(csvOf(KEPT), { source: 'second.csv', actor: 'test' });
    clock.now += 5000;
    const d = await b.directory();
    assert.equal(d.version, second.version);
    assert.equal(d.get(REMOVED), undefined);
    assert.equal(d.get(KEPT)?.name, `CASP ${KEPT}`);
  });

  it('under traffic the newer directory is loaded in the background, before the interval ends', async () => {
    const clock = { now: 2_000_000 };
    const a = instance(clock);
    const b = instance(clock);
    const held = await b.directory();
    const next = await a.import(csvOf(KEPT, REMOVED), { source: 'third.csv', actor: 'test' });
    clock.now += 2499;
    assert.equal((await b.directory()).version, held.version);
    clock.now += 1;
    // Half the interval: the check starts, this lookup does not wait for it.
    assert.equal((await b.directory()).version, held.version);
    // The clock stands still: only the background check can bring the newer directory.
    for (let i = 0; i < 500 && (await b.directory()).version !== next.version; i++) await pause(10);
    const d = await b.directory();
    assert.equal(d.version, next.version);
    assert.ok(d.get(REMOVED));
  });
});
