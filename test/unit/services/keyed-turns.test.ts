import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKeyedTurns } from '../../../src/services/keyed-turns.ts';

describe('keyed turns', () => {
  it('runs the tasks of one key one at a time, in order, and other keys alongside', async () => {
    const turns = createKeyedTurns();
    const log: string[] = [];
    let runningA = 0;
    let maxRunningA = 0;
    const taskA = (name: string, ms: number) =>
      turns.run('a', async () => {
        runningA++;
        maxRunningA = Math.max(maxRunningA, runningA);
        log.push(`start ${name}`);
        await sleep(ms);
        log.push(`end ${name}`);
        runningA--;
        return name;
      });
    const results = await Promise.all([
      taskA('a1', 20),
      taskA('a2', 1),
      turns.run('b', async () => {
        log.push('b');
        return 'b';
      }),
      taskA('a3', 1),
    ]);
    assert.deepEqual(results, ['a1', 'a2', 'b', 'a3']);
    assert.equal(maxRunningA, 1);
    assert.deepEqual(
      log.filter((l) => l !== 'b'),
      ['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3'],
    );
    assert.ok(log.indexOf('b') < log.indexOf('end a1'), 'key b did not wait for key a');
    assert.equal(turns.size, 0, 'no key is left behind');
  });

  it('passes the turn on when a task fails, and reports the failure to its caller only', async () => {
    const turns = createKeyedTurns();
    const failing = turns.run('k', async () => {
      await sleep(5);
      throw new Error('boom');
    });
    const next = turns.run('k', async () => 'next');
    await assert.rejects(failing, /boom/);
    assert.equal(await next, 'next');
    assert.equal(turns.size, 0);
  });
});
