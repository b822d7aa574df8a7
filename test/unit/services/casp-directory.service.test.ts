import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CaspEntry, CaspRecord } from '../../../src/domain/travel-rule/index.ts';
import { AppError } from '../../../src/errors.ts';
import { createCaspDirectoryService } from '../../../src/services/casp-directory.service.ts';

const GLEIF = '506700GE1G29325QX363';
const CITI = '6SHGI4ZSSLCXXQSBB395';
const entry = (lei: string, name: string): CaspEntry => ({ lei, name, country: 'XX' });
const tick = () => new Promise((r) => setImmediate(r));

/** A repository in memory that counts its queries; `load` can be held to finish later. */
function fakeRepo() {
  const state = { version: 0, entries: [] as CaspEntry[], versionQueries: 0, loads: 0, failNext: false };
  let hold: Promise<void> | undefined;
  return {
    state,
    holdLoads(p: Promise<void>) {
      hold = p;
    },
    async version() {
      state.versionQueries++;
      if (state.failNext) {
        state.failNext = false;
        throw new Error('db down');
      }
      return state.version;
    },
    async loadAll() {
      state.loads++;
      const snapshot = { version: state.version, entries: [...state.entries] };
      if (hold) await hold;
      return snapshot;
    },
    async replace(
      records: readonly CaspRecord[],
      meta: { source: string; sha256: string; actor: string },
      within?: (trx: never) => Promise<void>,
    ) {
      if (within) await within({} as never);
      state.version++;
      state.entries = records.map((r) => entry(r.lei, r.name));
      return { ...meta, version: state.version, row_count: records.length, imported_at: new Date(0) };
    },
  };
}

function setup(interval = 5000) {
  const repo = fakeRepo();
  let clock = 1_000_000;
  const errors: unknown[] = [];
  const audited: unknown[] = [];
  const service = createCaspDirectoryService({
    repo,
    audit: { record: async (e) => void audited.push(e) },
    refreshMs: interval,
    now: () => clock,
    onError: (e) => errors.push(e),
  });
  return { repo, service, errors, audited, advance: (ms: number) => (clock += ms) };
}

describe('CASP directory service', () => {
  it('loads once, then serves lookups from memory without queries', async () => {
    const { repo, service } = setup();
    repo.state.version = 4;
    repo.state.entries = [entry(GLEIF, 'GLEIF')];
    const d = await service.directory();
    assert.equal(d.version, 4);
    assert.equal(d.get(GLEIF)?.name, 'GLEIF');
    for (let i = 0; i < 100; i++) await service.directory();
    assert.equal(repo.state.loads, 1);
    assert.equal(repo.state.versionQueries, 0);
  });

  it('under traffic, checks in the background from half the interval and swaps in a newer directory', async () => {
    const { repo, service, advance } = setup();
    await service.directory();
    repo.state.version = 1;
    repo.state.entries = [entry(CITI, 'Citigroup Inc.')];
    advance(2499);
    assert.equal((await service.directory()).version, 0);
    assert.equal(repo.state.versionQueries, 0);
    advance(1);
    // The check runs in the background: this lookup still gets the loaded directory.
    assert.equal((await service.directory()).version, 0);
    assert.equal(repo.state.versionQueries, 1);
    // One check at a time.
    assert.equal((await service.directory()).version, 0);
    assert.equal(repo.state.versionQueries, 1);
    for (let i = 0; i < 5; i++) await tick();
    const d = await service.directory();
    assert.equal(d.version, 1);
    assert.equal(d.get(CITI)?.name, 'Citigroup Inc.');
    assert.equal(repo.state.versionQueries, 1);
    assert.equal(repo.state.loads, 2);
  });

  it('a check that finds the same version confirms the directory for another interval', async () => {
    const { repo, service, advance } = setup();
    await service.directory();
    advance(2500);
    await service.directory();
    for (let i = 0; i < 5; i++) await tick();
    assert.equal(repo.state.versionQueries, 1);
    advance(2499);
    await service.directory();
    assert.equal(repo.state.versionQueries, 1);
    advance(1);
    await service.directory();
    assert.equal(repo.state.versionQueries, 2);
    assert.equal(repo.state.loads, 1);
  });

  it('after a whole interval unconfirmed, the lookup waits for the check and the newer directory', async () => {
    // The defect: the first validation after an idle spell answered from the old directory, a CASP
    // removed by an import elsewhere still verified.
    const { repo, service, advance } = setup();
    repo.state.entries = [entry(GLEIF, 'GLEIF'), entry(CITI, 'Citigroup Inc.')];
    const before = await service.directory();
    assert.equal(before.get(CITI)?.name, 'Citigroup Inc.');
    repo.state.version = 1;
    repo.state.entries = [entry(GLEIF, 'GLEIF')];
    advance(5000);
    const d = await service.directory();
    assert.equal(d.version, 1);
    assert.equal(d.get(CITI), undefined);
    assert.equal(repo.state.versionQueries, 1);
  });

  it('a lookup past the interval waits for a check already running', async () => {
    const { repo, service, advance } = setup();
    await service.directory();
    repo.state.version = 2;
    let release: () => void = () => {};
    repo.holdLoads(new Promise<void>((r) => (release = r)));
    advance(3000);
    assert.equal((await service.directory()).version, 0); // starts the check, does not wait
    await tick();
    advance(2000);
    let answered: number | undefined;
    const waiting = service.directory().then((d) => {
      answered = d.version;
    });
    for (let i = 0; i < 5; i++) await tick();
    assert.equal(answered, undefined);
    release();
    await waiting;
    assert.equal(answered, 2);
    assert.equal(repo.state.versionQueries, 1);
  });

  it('keeps the loaded directory when a check fails, reports the error and tries again', async () => {
    const { repo, service, errors, advance } = setup();
    repo.state.entries = [entry(GLEIF, 'GLEIF')];
    await service.directory();
    repo.state.failNext = true;
    advance(5000);
    assert.equal((await service.directory()).get(GLEIF)?.name, 'GLEIF');
    assert.equal(errors.length, 1);
    assert.equal((await service.directory()).get(GLEIF)?.name, 'GLEIF');
    assert.equal(repo.state.versionQueries, 2);
  });

  it('an import switches this process at once, and an older load finishing later does not undo it', async () => {
    const { repo, service, audited, advance } = setup();
    await service.directory();
    advance(2500);
    repo.state.version = 7; // someone else imported: the background check will load version 7
    let release: () => void = () => {};
    repo.holdLoads(new Promise<void>((r) => (release = r)));
    await service.directory();
    await tick();
    const result = await service.import(`lei,name,country\n${CITI},Citigroup Inc.,US\n`, {
      source: 'esma.csv',
      actor: 'test',
    });
    assert.equal(result.version, 8);
    assert.equal(result.rows, 1);
    assert.equal(result.source, 'esma.csv');
    assert.equal((await service.directory()).version, 8);
    release();
    await tick();
    await tick();
    assert.equal((await service.directory()).version, 8);
    assert.deepEqual(audited, [
      {
        client_id: null,
        actor: 'test',
        action: 'casps.imported',
        subject: 'esma.csv',
        detail: { rows: 1, sha256: result.sha256 },
      },
    ]);
  });

  it('a CSV with problems is a 400 listing them, and nothing is replaced', async () => {
    const { repo, service } = setup();
    await assert.rejects(
      service.import('lei,name,country\nNOTALEI,X,DE\n', { actor: 'test' }),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'INVALID_REQUEST' &&
        (e.details?.errors as string[] | undefined)?.[0] === 'invalid LEI on line 2',
    );
    assert.equal(repo.state.version, 0);
  });

  it('a CSV that is no text (a NUL, a lone surrogate) is a 400 saying so, and nothing is replaced', async () => {
    const { repo, service } = setup();
    for (const name of ['Gle\u0000if', 'Gle\uD800if'])
      await assert.rejects(
        service.import(`lei,name,country\n${GLEIF},${name},CH\n`, { actor: 'test' }),
        (e: unknown) => e instanceof AppError && e.code === 'INVALID_REQUEST' && /not text/.test(e.message),
      );
    assert.equal(repo.state.version, 0);
    // A name outside the Basic Multilingual Plane is text (a surrogate pair, not a lone half).
    await service.import(`lei,name,country\n${GLEIF},Gleif \u{1F600},CH\n`, { actor: 'test' });
    assert.equal(repo.state.version, 1);
  });
});
