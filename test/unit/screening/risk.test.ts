import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  combineRisk,
  emptyRisk,
  exposureCategory,
  mapVendorA,
  mapVendorB,
  mapVendorC,
  type RiskPart,
  riskCategory,
  screeningActions,
  toIsoUtc,
  VENDOR_MAPPERS,
} from '../../../src/domain/screening/risk.ts';
import { fixtureJson } from './fixtures.ts';

const part = (p: Partial<RiskPart>): RiskPart => ({ ...emptyRisk(), ...p });

describe('categories', () => {
  test('match case-insensitively by substring', () => {
    assert.equal(exposureCategory('Sanctions'), 'sanctions');
    assert.equal(exposureCategory('OFAC SANCTIONED ENTITY'), 'sanctions');
    assert.equal(exposureCategory('Darknet Marketplace'), 'darknet');
    assert.equal(exposureCategory('mixer'), 'mixer');
    assert.equal(exposureCategory('Mixing Service'), 'mixer');
    assert.equal(exposureCategory('Coin Tumbler'), 'mixer');
    assert.equal(exposureCategory('Exchange'), null);
    assert.equal(exposureCategory(undefined), null);
    // "Dark Market" contains neither keyword: only the contract's words count.
    assert.equal(exposureCategory('Dark Market'), null);
  });
});

describe('vendor_a', () => {
  test('a sanctions identification scores 100 with full sanctions exposure', () => {
    assert.deepEqual(
      mapVendorA(fixtureJson('vendors/vendor_a_sanctioned.json')),
      part({ score: 100, sanctioned: 1, sanctions_hit: true }),
    );
  });
  test('no identifications, a 404 (null) or junk is no data', () => {
    assert.deepEqual(mapVendorA(fixtureJson('vendors/vendor_a_clean.json')), emptyRisk());
    assert.deepEqual(mapVendorA(null), emptyRisk());
    assert.deepEqual(mapVendorA({ identifications: 'x' }), emptyRisk());
  });
  test('a darknet or mixer identification is full exposure and a high score', () => {
    const r = mapVendorA({ identifications: [{ category: 'mixing' }, { category: 'Darknet market' }] });
    assert.deepEqual(r, part({ score: 75, darknet: 1, mixer: 1 }));
  });
});

describe('vendor_b', () => {
  test('scores the highest level and divides volume by category', () => {
    const r = mapVendorB(fixtureJson('vendors/vendor_b_exposure.json'));
    assert.deepEqual(
      r,
      part({
        score: 100,
        sanctioned: 0.2,
        darknet: 0.3,
        mixer: 0.1,
        last_activity_at: '2025-05-01T10:00:00.000Z',
      }),
    );
  });
  test('maps each published level', () => {
    for (const [level, score] of [
      [15, 100],
      [10, 75],
      [5, 50],
      [1, 10],
      [0, 0],
      [7, 50],
      [20, 100],
      ['10', 75],
    ] as const) {
      assert.equal(
        mapVendorB({ addressRiskIndicators: [{ categoryRiskScoreLevel: level }] }).score,
        score,
        String(level),
      );
    }
  });
  test('an OWNERSHIP sanctions indicator is a hit with exposure 1, even without volume', () => {
    const r = mapVendorB({
      addressRiskIndicators: [{ category: 'Sanctions', categoryRiskScoreLevel: 15, riskType: 'OWNERSHIP' }],
    });
    assert.deepEqual(r, part({ score: 100, sanctioned: 1, sanctions_hit: true }));
  });
  test('tolerates missing fields and odd bodies', () => {
    assert.deepEqual(mapVendorB({}), emptyRisk());
    assert.deepEqual(mapVendorB([]), emptyRisk());
    assert.deepEqual(mapVendorB('oops'), emptyRisk());
    assert.deepEqual(
      mapVendorB({ addressRiskIndicators: [null, 3, { category: 'Mixer', totalVolumeUsd: 'n/a' }] }),
      emptyRisk(),
    );
  });
});

describe('vendor_c', () => {
  test('scales risk_score ×10 and takes contributions as exposures', () => {
    const r = mapVendorC(fixtureJson('vendors/vendor_c_wallet.json'));
    assert.deepEqual(
      r,
      part({
        score: 62,
        sanctioned: 0.3,
        darknet: 0.2,
        mixer: 0.125,
        last_activity_at: '2024-05-01T10:00:00.000Z',
      }),
    );
  });
  test('a null risk_score is 0; out-of-range values are clamped', () => {
    assert.equal(mapVendorC({ risk_score: null }).score, 0);
    assert.equal(mapVendorC({ risk_score: 12 }).score, 100);
    assert.equal(mapVendorC({ risk_score: -1 }).score, 0);
    assert.equal(
      mapVendorC({
        evaluation_detail: {
          source: [{ matched_elements: [{ category: 'sanctions', contribution_percentage: 250 }] }],
        },
      }).sanctioned,
      1,
    );
  });
  test('a sanctioned primary cluster entity is a hit', () => {
    const r = mapVendorC({
      risk_score: 10,
      cluster_entities: [{ category: 'Sanctions', is_primary_entity: true }],
    });
    assert.deepEqual(r, part({ score: 100, sanctioned: 1, sanctions_hit: true }));
  });
});

describe('mappers never throw and stay in range', () => {
  test('on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(...Object.values(VENDOR_MAPPERS)), (body, map) => {
        const r = map(body);
        assert.ok(r.score >= 0 && r.score <= 100);
        for (const x of [r.sanctioned, r.darknet, r.mixer]) assert.ok(x >= 0 && x <= 1);
      }),
    );
  });
});

describe('combineRisk', () => {
  test('the worst of each field wins', () => {
    const r = combineRisk([
      part({ score: 40, darknet: 0.5, last_activity_at: '2024-01-01T00:00:00Z' }),
      part({ score: 62, mixer: 0.125, last_activity_at: '2025-03-01T00:00:00.000Z' }),
      null,
      part({ sanctioned: 0.2 }),
    ]);
    assert.deepEqual(
      r,
      part({
        score: 62,
        sanctioned: 0.2,
        darknet: 0.5,
        mixer: 0.125,
        last_activity_at: '2025-03-01T00:00:00.000Z',
      }),
    );
  });
  test('a sanctions hit from any source means full sanctions exposure', () => {
    const r = combineRisk([part({ score: 10 }), part({ sanctions_hit: true })]);
    assert.equal(r.sanctioned, 1);
    assert.equal(r.sanctions_hit, true);
  });
  test('nothing combined is empty', () => {
    assert.deepEqual(combineRisk([]), emptyRisk());
  });
  test('normalises activity times', () => {
    assert.equal(toIsoUtc('2024-05-01T12:00:00+02:00'), '2024-05-01T10:00:00.000Z');
    assert.equal(toIsoUtc(1714557600000), '2024-05-01T10:00:00.000Z');
    assert.equal(toIsoUtc('yesterday'), null);
  });
});

describe('riskCategory', () => {
  test('uses the contract bands', () => {
    const cases: Array<[number, string]> = [
      [0, 'low'],
      [24.9, 'low'],
      [25, 'medium'],
      [49, 'medium'],
      [50, 'high'],
      [74, 'high'],
      [75, 'critical'],
      [100, 'critical'],
    ];
    for (const [score, category] of cases) assert.equal(riskCategory(score, false), category, String(score));
  });
  test('is critical on any sanctions hit', () => {
    assert.equal(riskCategory(0, true), 'critical');
  });
});

describe('screeningActions', () => {
  const r = (result: string, triggered = true) => ({ triggered, result });
  test('lists BLOCK, REVIEW, REQUEST_INFO in that order, once each', () => {
    assert.deepEqual(screeningActions([r('fail'), r('alert'), r('block'), r('alert')]), [
      'BLOCK',
      'REVIEW',
      'REQUEST_INFO',
    ]);
    assert.deepEqual(screeningActions([r('alert'), r('pass', false)]), ['REVIEW']);
    assert.deepEqual(screeningActions([r('fail')]), ['REQUEST_INFO']);
  });
  test('is ALLOW when nothing triggered', () => {
    assert.deepEqual(screeningActions([]), ['ALLOW']);
    assert.deepEqual(screeningActions([r('block', false), r('pass', false)]), ['ALLOW']);
  });
});
