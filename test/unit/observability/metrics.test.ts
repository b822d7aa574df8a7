import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMetrics } from '../../../src/observability/metrics.ts';

/** The rule counts are kept outside prom-client and handed over when the metrics are read. */
describe('rule evaluation counts', () => {
  const line = (text: string, rule: string, result: string, triggered: boolean) =>
    new RegExp(
      `^mica_rule_evaluations_total\\{rule_id="${rule}",result="${result}",triggered="${triggered}"\\} (\\d+)$`,
      'm',
    ).exec(text)?.[1];

  it('reads every count once, however often the metrics are read', async () => {
    const m = createMetrics();
    for (let i = 0; i < 5; i++) m.countRuleResult('MICA-TX-001', 'pass', false);
    m.countRuleResult('MICA-TX-001', 'block', true);
    let text = await m.registry.metrics();
    assert.equal(line(text, 'MICA-TX-001', 'pass', false), '5');
    assert.equal(line(text, 'MICA-TX-001', 'block', true), '1');
    assert.equal(line(text, 'MICA-TX-001', 'pass', true), undefined);
    text = await m.registry.metrics();
    assert.equal(line(text, 'MICA-TX-001', 'pass', false), '5');
    m.countRuleResult('MICA-TX-001', 'pass', false);
    m.countRuleResult('MICA-CDD-002', 'alert', true);
    text = await m.registry.metrics();
    assert.equal(line(text, 'MICA-TX-001', 'pass', false), '6');
    assert.equal(line(text, 'MICA-CDD-002', 'alert', true), '1');
  });
});
