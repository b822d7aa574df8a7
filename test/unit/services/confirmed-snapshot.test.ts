import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConfirmedSnapshot } from '../../../src/services/confirmed-snapshot.ts';

/** A store whose version and loads the test controls, and a clock it moves. */
function setup(opts: { replaces?: (next: number, held: number) => boolean } = {}) {
  let clock = 0;
  let stored = 1;
  const calls = { loads: 0, checks: 0 };
  let gate: Promise<void> | undefined;
  const held = createConfirmedSnapshot<number>({
    async load() {
      calls.loads++;
      const v = stored;
      await gate;
      return v;
    },
    async storedVersion() {
      calls.checks++;
      return stored;
    },
    versionOf: (v) => v,
    replaces: opts.replaces,
    refreshMs: 1000,
    now: () => clock,
  });
  return {
    held,
    calls,
    tick: (ms: number) => {
      clock += ms;
    },
    store: (v: number) => {
      stored = v;
    },
    hold: () => {
      let open!: () => void;
      gate = new Promise((r) => {
        open = r;
      });
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

test('the first call loads; within half the interval nothing is asked of the store', async () => {
  const s = setup();
  assert.equal(await s.held.current(), 1);
  s.tick(499);
  s.store(2);
  assert.equal(await s.held.current(), 1);
  assert.deepEqual(s.calls, { loads: 1, checks: 0 });
});

test('past half the interval a check runs in the background; nobody waits for it', async () => {
  const s = setup();
  await s.held.current();
  s.store(2);
  s.tick(600);
  const release = s.hold();
  assert.equal(await s.held.current(), 1, 'answered from the held copy while the check is out');
  release();
  await new Promise((r) => setImmediate(r));
  assert.equal(await s.held.current(), 2, 'the newer version was loaded by the check');
  assert.equal(s.calls.loads, 2);
});

test('a copy unconfirmed for the whole interval is not answered from: the caller waits for the check', async () => {
  const s = setup();
  await s.held.current();
  s.store(3);
  s.tick(1000);
  assert.equal(await s.held.current(), 3);
});

test('a failed check keeps the held copy and is told; the next caller tries again', async () => {
  const errors: unknown[] = [];
  let fail = true;
  let clock = 0;
  const held = createConfirmedSnapshot<number>({
    load: async () => 1,
    storedVersion: async () => {
      if (fail) throw new Error('store away');
      return 1;
    },
    versionOf: (v) => v,
    refreshMs: 1000,
    now: () => clock,
    onError: (e) => errors.push(e),
  });
  await held.current();
  clock = 1000;
  assert.equal(await held.current(), 1);
  assert.equal(errors.length, 1);
  fail = false;
  assert.equal(await held.current(), 1);
  assert.equal(errors.length, 1);
});

test('a slower load does not replace a newer adopted copy when replaces says so', async () => {
  const s = setup({ replaces: (next, held) => next >= held });
  const release = s.hold();
  const first = s.held.current();
  s.held.adopt(5, 0);
  release();
  assert.equal(await first, 5, 'the load of version 1 finished after version 5 was adopted');
  assert.equal(s.held.peek(), 5);
});

test('reloadAfterCommit waits for a load begun before the commit, then loads again', async () => {
  const s = setup();
  await s.held.current();
  s.store(2);
  s.tick(1000);
  const release = s.hold();
  const during = s.held.current(); // a check, then a load that reads version 2
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  s.store(3); // the commit, after that load read the store
  const after = s.held.reloadAfterCommit();
  release();
  await during;
  await after;
  assert.equal(s.held.peek(), 3);
});

test('reloadAfterCommit loads nothing in a process that never asked (the CLI)', async () => {
  const s = setup();
  await s.held.reloadAfterCommit();
  assert.equal(s.calls.loads, 0);
  assert.equal(s.held.peek(), undefined);
});
