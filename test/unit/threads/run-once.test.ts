import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isMainThread } from 'node:worker_threads';
import { runOnce } from '../../../src/threads/run-once.ts';

// Any TypeScript module will do: list-prep.ts has a task that returns and one that throws.
const LIST_PREP = new URL('../../../src/services/list-prep.ts', import.meta.url);
const BAD_UN = { source: 'un', files: [{ name: 'un.xml', content: '<other/>' }] };

describe('runOnce', () => {
  it('runs an exported function on another thread and resolves with its result', async () => {
    assert.ok(isMainThread);
    const out = await runOnce<typeof BAD_UN, { ok: boolean; message: string }>(
      LIST_PREP,
      'prepareOutcome',
      BAD_UN,
    );
    assert.equal(out.ok, false);
    assert.match(out.message, /^un: un\.xml is not the UN consolidated list: expected root element/);
  });

  it('rejects with the message of what the function threw', async () => {
    await assert.rejects(
      runOnce(LIST_PREP, 'prepareList', BAD_UN),
      /^Error: prepareList on a worker thread: un: un\.xml is not the UN consolidated list: expected root element/,
    );
  });

  it('rejects when the module has no such function', async () => {
    await assert.rejects(runOnce(LIST_PREP, 'nothing', {}), /exports no function nothing/);
  });
});
