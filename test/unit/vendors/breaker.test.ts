import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import {
  BreakerOpenError,
  type BreakerStore,
  createBreakers,
  createMemoryBreakerStore,
} from '../../../src/vendors/breaker.ts';
import { createRedisBreakerStore } from '../../../src/vendors/breaker-redis.ts';

const REDIS_URL = process.env.REDIS_URL || undefined;
const RECOVERY = 30_000;

/** The same state-machine checks against each store: memory always, Redis when REDIS_URL is set. */
const stores: Array<[string, () => BreakerStore]> = [['memory', createMemoryBreakerStore]];
if (REDIS_URL) stores.push(['redis', () => createRedisBreakerStore(REDIS_URL)]);

for (const [kind, makeStore] of stores) {
  describe(`circuit breaker (${kind} store, fake clock)`, () => {
    const opened: BreakerStore[] = [];
    after(async () => {
      for (const s of opened) await s.close();
    });

    function setup() {
      const store = makeStore();
      opened.push(store);
      let clock = Date.parse('2025-06-01T00:00:00Z');
      // Fresh keys per test: Redis state outlives a test run.
      const run = randomUUID();
      const b = createBreakers({
        names: ['a', 'b'] as const,
        keyOf: (n) => `test:breaker:${run}:${n}`,
        store,
        options: { failureThreshold: 5, recoveryMs: RECOVERY },
        now: () => clock,
      });
      const call = async (name: 'a' | 'b', outcome: 'success' | 'failure' | 'neutral') => {
        const [permit] = await b.admit([name]);
        await b.settle(permit!, outcome);
        return permit!;
      };
      const state = async (name: 'a' | 'b') => (await b.status())[name];
      return {
        b,
        call,
        state,
        tick: (ms: number) => {
          clock += ms;
        },
        now: () => clock,
      };
    }

    it('starts CLOSED with zero counters', async () => {
      const { b } = setup();
      assert.deepEqual(await b.status(), {
        a: { state: 'CLOSED', failures: 0, successes: 0, last_failure: null },
        b: { state: 'CLOSED', failures: 0, successes: 0, last_failure: null },
      });
    });

    it('opens after 5 consecutive failures, not after 4; a success in between resets the count', async () => {
      const { call, state, now } = setup();
      for (let i = 0; i < 4; i++) await call('a', 'failure');
      assert.equal((await state('a')).state, 'CLOSED');
      await call('a', 'success');
      assert.deepEqual(await state('a'), {
        state: 'CLOSED',
        failures: 0,
        successes: 1,
        last_failure: new Date(now()).toISOString(),
      });
      for (let i = 0; i < 5; i++) await call('a', 'failure');
      const s = await state('a');
      assert.equal(s.state, 'OPEN');
      assert.equal(s.failures, 5);
      assert.equal(s.successes, 1);
    });

    it('OPEN fails fast, reads HALF_OPEN once the recovery time passed, lets one test request through', async () => {
      const { b, call, state, tick } = setup();
      for (let i = 0; i < 5; i++) await call('a', 'failure');
      await assert.rejects(b.admit(['a']), (e) => e instanceof BreakerOpenError && e.state === 'OPEN');
      tick(RECOVERY - 1);
      assert.equal((await state('a')).state, 'OPEN');
      tick(1);
      assert.equal((await state('a')).state, 'HALF_OPEN');
      const [trial] = await b.admit(['a']);
      assert.equal(trial!.trial, true);
      // While the test request runs, nothing else passes.
      await assert.rejects(b.admit(['a']), (e) => e instanceof BreakerOpenError && e.state === 'HALF_OPEN');
      await b.settle(trial!, 'success');
      assert.deepEqual(await state('a'), {
        state: 'CLOSED',
        failures: 0,
        successes: 1,
        last_failure: (await state('a')).last_failure,
      });
      const [normal] = await b.admit(['a']);
      assert.equal(normal!.trial, false);
    });

    it('a failed test request reopens for another recovery period; one test per period', async () => {
      const { b, call, state, tick } = setup();
      for (let i = 0; i < 5; i++) await call('a', 'failure');
      tick(RECOVERY);
      const t1 = await call('a', 'failure');
      assert.equal(t1.trial, true);
      const s = await state('a');
      assert.equal(s.state, 'OPEN');
      assert.equal(s.failures, 6, 'failures keep counting while not closed');
      tick(RECOVERY - 1);
      await assert.rejects(b.admit(['a']), (e) => e instanceof BreakerOpenError && e.state === 'OPEN');
      tick(1);
      assert.equal((await state('a')).state, 'HALF_OPEN');
      const t2 = await call('a', 'success');
      assert.equal(t2.trial, true);
      assert.equal((await state('a')).state, 'CLOSED');
    });

    it('a test request that never reports back frees the slot after one period', async () => {
      const { b, call, tick } = setup();
      for (let i = 0; i < 5; i++) await call('a', 'failure');
      tick(RECOVERY);
      await b.admit(['a']); // lost: never settled
      tick(RECOVERY - 1);
      await assert.rejects(b.admit(['a']));
      tick(1);
      const [again] = await b.admit(['a']);
      assert.equal(again!.trial, true);
    });

    it('a neutral outcome (vendor refused with a 4xx) neither counts nor resets', async () => {
      const { call, state } = setup();
      for (let i = 0; i < 3; i++) await call('a', 'failure');
      await call('a', 'neutral');
      assert.equal((await state('a')).failures, 3);
      assert.equal((await state('a')).successes, 0);
    });

    it('admits all or none: an OPEN breaker blocks the group and no trial is spent', async () => {
      const { b, call, state, tick } = setup();
      for (let i = 0; i < 5; i++) await call('b', 'failure');
      tick(RECOVERY); // b half-open
      for (let i = 0; i < 5; i++) await call('a', 'failure'); // a freshly open
      await assert.rejects(b.admit(['a', 'b']), (e) => e instanceof BreakerOpenError && e.vendor === 'a');
      // b's test slot was not taken by the refused group.
      const [trial] = await b.admit(['b']);
      assert.equal(trial!.trial, true);
      assert.equal((await state('b')).state, 'HALF_OPEN');
    });

    it('late results of calls admitted before opening only count', async () => {
      const { b, call, state } = setup();
      const [early] = await b.admit(['a']);
      for (let i = 0; i < 5; i++) await call('a', 'failure');
      await b.settle(early!, 'success');
      const s = await state('a');
      assert.equal(s.state, 'OPEN');
      assert.equal(s.successes, 1);
    });
  });
}

if (REDIS_URL) {
  describe('circuit breaker shared through Redis', () => {
    it('two instances see one breaker', async () => {
      const s1 = createRedisBreakerStore(REDIS_URL);
      const s2 = createRedisBreakerStore(REDIS_URL);
      try {
        const key = `test:breaker:${randomUUID()}`;
        const make = (store: BreakerStore) =>
          createBreakers({
            names: ['v'] as const,
            keyOf: () => key,
            store,
            options: { failureThreshold: 5, recoveryMs: RECOVERY },
          });
        const one = make(s1);
        const two = make(s2);
        for (let i = 0; i < 5; i++) {
          const [p] = await (i % 2 ? one : two).admit(['v']);
          await (i % 2 ? one : two).settle(p!, 'failure');
        }
        assert.equal((await one.status()).v.state, 'OPEN');
        await assert.rejects(two.admit(['v']), BreakerOpenError);
      } finally {
        await s1.close();
        await s2.close();
      }
    });
  });
}
