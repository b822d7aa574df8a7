import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OFF_THREAD_BODY_BYTES } from '../../src/http/plugins/json-body.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { fixtureText } from '../unit/screening/fixtures.ts';

// Bodies over OFF_THREAD_BODY_BYTES are parsed on a worker thread; only the operator API takes them.
describe('operator API bodies over 1 MiB', () => {
  let t: TestApp;
  let operator: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    operator = { authorization: `Bearer ${t.deps.operatorToken()}`, 'content-type': 'application/json' };
  });
  after(() => t.close());
  const command = (name: string, payload: string) =>
    t.app.inject({ method: 'POST', url: `/api/admin/commands/${name}`, headers: operator, payload });

  it('a 2 MB list import is read and imported', async () => {
    const content = fixtureText('un_sanctions/UN_consolidated.xml');
    const payload = JSON.stringify({
      args: { source: 'un', files: [{ name: 'UN_consolidated.xml', content }] },
    });
    assert.ok(Buffer.byteLength(payload) > OFF_THREAD_BODY_BYTES);
    const res = await command('lists.import', payload);
    assert.equal(res.statusCode, 200, res.body);
    const result = res.json().result as { source: string; entries: number };
    assert.equal(result.source, 'un');
    assert.ok(result.entries > 1000, `${result.entries}`);
  });

  for (const [what, payload, message] of [
    [
      'malformed',
      `{"args":{"padding":"${'x'.repeat(OFF_THREAD_BODY_BYTES)}"}`,
      'Request body is not valid JSON',
    ],
    [
      'nested too deeply',
      `{"args":{"padding":"${'x'.repeat(OFF_THREAD_BODY_BYTES)}","deep":${'['.repeat(100)}${']'.repeat(100)}}}`,
      'Request body is nested deeper than 64 levels',
    ],
    [
      'holding a NUL',
      `{"args":{"padding":"${'x'.repeat(OFF_THREAD_BODY_BYTES)}","nul":"\\u0000"}}`,
      'Request body contains a NUL character or an unpaired surrogate',
    ],
  ] as const) {
    it(`one ${what} gets the same 400 as a small one`, async () => {
      const res = await command('lists.status', payload);
      assert.equal(res.statusCode, 400, res.body);
      const error = res.json().error as { code: string; message: string; details: Record<string, unknown> };
      assert.equal(error.code, 'INVALID_REQUEST');
      assert.equal(error.message, message);
      assert.equal(error.details.field, 'body');
    });
  }
});
