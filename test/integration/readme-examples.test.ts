import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

// The README's curl examples are what a newcomer pastes first: each runs here, as written, against
// the service (with the demo client's key for $KEY), and must be answered 2xx with what the README
// says of it. One went stale when a rule changed (a transfer's two addresses on two chains).

interface Example {
  url: string;
  body?: string;
}

/** Every `curl` of the README's shell blocks: its URL and its `-d '…'` body (lines joined). */
function curlExamples(readme: string): Example[] {
  const out: Example[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const text = block[1]!.replace(/\\\n/g, ' ');
    for (const m of text.matchAll(
      /curl -s "?(http:\/\/127\.0\.0\.1:8080[^"\s]+)"?([^\n]*(?:\n\s+[^\n]*)*)/g,
    )) {
      const rest = m[2]!;
      const body = /-d '([\s\S]*?)'/.exec(rest)?.[1];
      out.push({ url: m[1]!, body: body?.replace(/\n\s*/g, ' ') });
    }
  }
  return out;
}

describe("the README's curl examples", () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const examples = curlExamples(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'));
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'demo', { role: 'admin' }));
  });
  after(() => t.close());

  it('are found: the evaluation, the travel-rule validation and the audit queries', () => {
    const paths = examples.map((e) => new URL(e.url).pathname);
    for (const p of ['/api/mica/evaluate', '/api/mica/travel-rule-validation', '/api/mica/audit/evaluations'])
      assert.ok(paths.includes(p), `${p} in ${paths.join(', ')}`);
  });

  it('are answered 2xx as written', async () => {
    const answers = new Map<string, { statusCode: number; body: string }>();
    for (const e of examples) {
      const u = new URL(e.url);
      const res = await t.app.inject({
        method: e.body === undefined ? 'GET' : 'POST',
        url: `${u.pathname}${u.search}`,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: e.body,
      });
      assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${e.url}: ${res.statusCode} ${res.body}`);
      answers.set(u.pathname, res);
    }
    // What the README says of them: the evaluation blocks (MICA-CDD-002) and opens a case; the
    // transfer is complete, its CASP not in the directory, so REVIEW.
    const evaluation = JSON.parse(answers.get('/api/mica/evaluate')!.body);
    assert.equal(evaluation.should_block, true);
    assert.equal(evaluation.should_create_case, true);
    const transfer = JSON.parse(answers.get('/api/mica/travel-rule-validation')!.body);
    assert.equal(transfer.validation_result.data_completeness, 'complete');
    assert.equal(transfer.validation_result.counterparty_verified, false);
    assert.deepEqual(transfer.rule_evaluation.actions, ['REVIEW']);
  });
});
