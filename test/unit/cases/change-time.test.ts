import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeTime } from '../../../src/domain/cases/change-time.ts';

describe('changeTime', () => {
  const last = new Date('2026-11-27T10:00:00.500Z');
  it('is the clock when it is at or after the last change', () => {
    const now = new Date('2026-11-27T10:00:01.000Z');
    assert.equal(changeTime(now, last), now);
    assert.equal(changeTime(last, last.toISOString()).getTime(), last.getTime());
    assert.equal(changeTime(now, null), now);
    assert.equal(changeTime(now, undefined), now);
  });
  it('is the last change when the clock is behind it (another instance stamped it)', () => {
    const behind = new Date('2026-11-27T10:00:00.480Z');
    assert.equal(changeTime(behind, last).getTime(), last.getTime());
    assert.equal(changeTime(behind, last.toISOString()).getTime(), last.getTime());
  });
});
