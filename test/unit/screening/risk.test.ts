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
  type VendorReading,
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

/** The risk of a readable answer (fails the test, with the problem, otherwise). */
function risk(r: VendorReading): RiskPart {
  assert.ok(r.ok, r.ok ? '' : r.problem);
  return r.risk;
}

/** An unreadable answer, naming `field` as the first one that could not be read. */
function unreadable(r: VendorReading, field: string): void {
  assert.equal(r.ok, false, `read as ${JSON.stringify(r.ok && r.risk)}, expected ${field} refused`);
  assert.ok(!r.ok && r.problem.startsWith(`${field}: expected `), `${!r.ok && r.problem} (wanted ${field})`);
}

const indicator = (p: Record<string, unknown> = {}) => ({
  category: 'Exchange',
  categoryRiskScoreLevel: 1,
  categoryRiskScoreLevelLabel: 'Low',
  riskType: 'COUNTERPARTY',
  totalVolumeUsd: '100',
  ...p,
});
const entity = (p: Record<string, unknown> = {}) => ({
  entity: 'Garantex',
  category: 'sanctions',
  riskScoreLevel: 15,
  riskScoreLevelLabel: 'Severe',
  ...p,
});
const bElement = (p: Record<string, unknown> = {}) => ({
  address: 'x',
  chain: 'ethereum',
  addressRiskIndicators: [],
  entities: [],
  ...p,
});
const element = (p: Record<string, unknown> = {}) => ({
  category: 'Mixer',
  contribution_percentage: 10,
  ...p,
});
const cBody = (elements: unknown[], p: Record<string, unknown> = {}) => ({
  risk_score: 3,
  evaluation_detail: { source: [{ rule_name: 'r', risk_score: 3, matched_elements: elements }] },
  ...p,
});
const without = (o: Record<string, unknown>, key: string) => {
  const { [key]: _, ...rest } = o;
  return rest;
};

describe('vendor_a', () => {
  test('a sanctions identification scores 100 with full sanctions exposure', () => {
    assert.deepEqual(
      risk(mapVendorA(fixtureJson('vendors/vendor_a_sanctioned.json'))),
      part({ score: 100, sanctioned: 1, sanctions_hit: true }),
    );
    // name, description and url are optional.
    assert.deepEqual(
      risk(mapVendorA({ identifications: [{ category: 'Sanctions' }] })),
      part({ score: 100, sanctioned: 1, sanctions_hit: true }),
    );
  });
  test('no identifications is clean', () => {
    assert.deepEqual(risk(mapVendorA(fixtureJson('vendors/vendor_a_clean.json'))), emptyRisk());
  });
  test('a darknet or mixer identification is full exposure and a high score', () => {
    const r = mapVendorA({ identifications: [{ category: 'mixing' }, { category: 'Darknet market' }] });
    assert.deepEqual(risk(r), part({ score: 75, darknet: 1, mixer: 1 }));
  });
  test('an identification without a readable category is not clean: the answer is unreadable', () => {
    // The review's case: a designated party, its category missing.
    unreadable(
      mapVendorA({
        identifications: [{ name: 'Lazarus Group', description: 'OFAC SDN designated', url: 'https://x' }],
      }),
      'identifications[0].category',
    );
    for (const category of [null, 5, '', '  ', ['sanctions'], { name: 'sanctions' }])
      unreadable(
        mapVendorA({ identifications: [{ category: 'Exchange' }, { category }] }),
        'identifications[1].category',
      );
    unreadable(mapVendorA({ identifications: [null] }), 'identifications[0]');
  });
  test('an answer without the identifications list is unreadable', () => {
    unreadable(mapVendorA({}), 'identifications');
    unreadable(mapVendorA({ identifications: 'x' }), 'identifications');
    unreadable(mapVendorA(null), 'answer');
    unreadable(mapVendorA([]), 'answer');
  });
});

describe('vendor_b', () => {
  test('scores the highest level and divides volume by category', () => {
    const [first] = fixtureJson<unknown[]>('vendors/vendor_b_exposure.json');
    assert.deepEqual(
      risk(mapVendorB(first)),
      part({
        score: 100,
        sanctioned: 0.2,
        darknet: 0.3,
        mixer: 0.1,
        last_activity_at: '2025-05-01T10:00:00.000Z',
      }),
    );
  });
  test('maps each published level; any other level is unreadable', () => {
    for (const [level, score] of [
      [15, 100],
      [10, 75],
      [5, 50],
      [1, 10],
      [0, 0],
    ] as const) {
      const r = mapVendorB(
        bElement({ addressRiskIndicators: [indicator({ categoryRiskScoreLevel: level })] }),
      );
      assert.equal(risk(r).score, score, String(level));
    }
    for (const level of [7, 20, -1, 10.5, '10', null, true])
      unreadable(
        mapVendorB(bElement({ addressRiskIndicators: [indicator({ categoryRiskScoreLevel: level })] })),
        'addressRiskIndicators[0].categoryRiskScoreLevel',
      );
  });
  test('an OWNERSHIP sanctions indicator is a hit with exposure 1, whatever the volume', () => {
    const r = mapVendorB(
      bElement({
        addressRiskIndicators: [
          indicator({
            category: 'Sanctions',
            categoryRiskScoreLevel: 15,
            riskType: 'OWNERSHIP',
            totalVolumeUsd: 0,
          }),
        ],
      }),
    );
    assert.deepEqual(risk(r), part({ score: 100, sanctioned: 1, sanctions_hit: true }));
  });
  test("the review's indicators: no level, or a volume that is not a number, are unreadable, not clean", () => {
    const severe = { category: 'Sanctions', categoryRiskScoreLevelLabel: 'Severe', riskType: 'COUNTERPARTY' };
    unreadable(
      mapVendorB(bElement({ addressRiskIndicators: [{ ...severe, totalVolumeUsd: '10' }] })),
      'addressRiskIndicators[0].categoryRiskScoreLevel',
    );
    unreadable(
      mapVendorB(
        bElement({
          addressRiskIndicators: [{ ...severe, categoryRiskScoreLevel: 15, totalVolumeUsd: 'n/a' }],
        }),
      ),
      'addressRiskIndicators[0].totalVolumeUsd',
    );
  });
  test('checks every field the mapping needs, type and range; labels are optional', () => {
    const base = indicator();
    for (const field of ['category', 'categoryRiskScoreLevel', 'totalVolumeUsd', 'riskType'])
      unreadable(
        mapVendorB(bElement({ addressRiskIndicators: [base, without(base, field)] })),
        `addressRiskIndicators[1].${field}`,
      );
    const bad: Array<[string, unknown]> = [
      ['category', 3],
      ['category', ''],
      ['totalVolumeUsd', -1],
      ['totalVolumeUsd', '-1'],
      ['totalVolumeUsd', ''],
      ['totalVolumeUsd', null],
      ['riskType', 'owner'],
      ['riskType', null],
    ];
    for (const [field, value] of bad)
      unreadable(
        mapVendorB(bElement({ addressRiskIndicators: [indicator({ [field]: value })] })),
        `addressRiskIndicators[0].${field}`,
      );
    unreadable(mapVendorB(bElement({ addressRiskIndicators: [null] })), 'addressRiskIndicators[0]');
    // Volumes as numbers or decimal numerals (this vendor family sends text).
    const volumes = mapVendorB(
      bElement({
        addressRiskIndicators: [
          indicator({ category: 'Mixer', totalVolumeUsd: 25.5 }),
          indicator({ totalVolumeUsd: '76.5' }),
        ],
      }),
    );
    assert.equal(risk(volumes).mixer, 0.25);
    const labelless = without(indicator({ categoryRiskScoreLevel: 5 }), 'categoryRiskScoreLevelLabel');
    assert.equal(risk(mapVendorB(bElement({ addressRiskIndicators: [labelless] }))).score, 50);
  });
  test('an answer without the indicator list is unreadable; entities missing or null are none', () => {
    unreadable(mapVendorB(without(bElement(), 'addressRiskIndicators')), 'addressRiskIndicators');
    unreadable(mapVendorB(bElement({ addressRiskIndicators: null })), 'addressRiskIndicators');
    unreadable(mapVendorB(bElement({ entities: {} })), 'entities');
    unreadable(mapVendorB(bElement({ entities: 'none' })), 'entities');
    unreadable(mapVendorB('oops'), 'answer');
    assert.deepEqual(risk(mapVendorB(bElement())), emptyRisk());
    // The review's answers: entities left out, or sent as null, failed the whole answer.
    const mixer = { addressRiskIndicators: [indicator({ category: 'Mixer', categoryRiskScoreLevel: 10 })] };
    for (const e of [without(bElement(mixer), 'entities'), bElement({ ...mixer, entities: null })])
      assert.deepEqual(risk(mapVendorB(e)), part({ score: 75, mixer: 1 }));
  });
  test('riskType is read in any case; an unknown one is refused, saying so', () => {
    for (const riskType of ['ownership', 'Ownership', 'OWNERSHIP'])
      assert.equal(
        risk(
          mapVendorB(
            bElement({
              addressRiskIndicators: [indicator({ category: 'Sanctions', riskType, totalVolumeUsd: 0 })],
            }),
          ),
        ).sanctions_hit,
        true,
        riskType,
      );
    assert.equal(
      risk(mapVendorB(bElement({ addressRiskIndicators: [indicator({ riskType: 'counterparty' })] }))).score,
      10,
    );
    for (const riskType of ['owner', 'INDIRECT', '', 1, null]) {
      const r = mapVendorB(bElement({ addressRiskIndicators: [indicator({ riskType })] }));
      unreadable(r, 'addressRiskIndicators[0].riskType');
      assert.match(
        !r.ok ? r.problem : '',
        /OWNERSHIP or COUNTERPARTY in any case \(an unknown risk type is refused/,
      );
    }
  });
  test('totalVolumeUsd: a number, or any non-blank text Number() reads as finite ≥ 0', () => {
    const share = (totalVolumeUsd: unknown) =>
      risk(
        mapVendorB(
          bElement({
            addressRiskIndicators: [
              indicator({ category: 'Mixer', totalVolumeUsd }),
              indicator({ totalVolumeUsd: 1e-7 }),
            ],
          }),
        ),
      ).mixer;
    assert.equal(share('1e-7'), 0.5);
    assert.equal(share(1e-7), 0.5);
    assert.equal(share(' 3e-7 '), 0.75);
    assert.equal(share('0.0000001'), 0.5);
    for (const bad of [
      '',
      '  ',
      'n/a',
      '-1',
      '-1e-7',
      'Infinity',
      '1e400',
      '12 USD',
      NaN,
      -1,
      Infinity,
      null,
      true,
    ])
      unreadable(
        mapVendorB(bElement({ addressRiskIndicators: [indicator({ totalVolumeUsd: bad })] })),
        'addressRiskIndicators[0].totalVolumeUsd',
      );
  });
  test('an entity (who controls the address) counts: its level in the score, a sanctions one is a hit', () => {
    // The review's case: no indicator, the address controlled by a sanctioned exchange.
    const garantex = mapVendorB(bElement({ entities: [entity()] }));
    assert.deepEqual(risk(garantex), part({ score: 100, sanctioned: 1, sanctions_hit: true }));
    assert.deepEqual(
      risk(mapVendorB(bElement({ entities: [entity({ category: 'Darknet Market', riskScoreLevel: 10 })] }))),
      part({ score: 75, darknet: 1 }),
    );
    assert.deepEqual(
      risk(mapVendorB(bElement({ entities: [entity({ category: 'Mixing Service', riskScoreLevel: 10 })] }))),
      part({ score: 75, mixer: 1 }),
    );
    // Another category: its level only; the highest level of indicators and entities wins.
    const r = mapVendorB(
      bElement({
        addressRiskIndicators: [indicator({ categoryRiskScoreLevel: 1 })],
        entities: [entity({ category: 'Exchange', riskScoreLevel: 5, riskScoreLevelLabel: undefined })],
      }),
    );
    assert.deepEqual(risk(r), part({ score: 50 }));
  });
  test("an entity's category and level are needed like an indicator's", () => {
    for (const field of ['category', 'riskScoreLevel'])
      unreadable(mapVendorB(bElement({ entities: [without(entity(), field)] })), `entities[0].${field}`);
    unreadable(
      mapVendorB(bElement({ entities: [entity({ riskScoreLevel: 12 })] })),
      'entities[0].riskScoreLevel',
    );
    unreadable(mapVendorB(bElement({ entities: [entity({ category: null })] })), 'entities[0].category');
    unreadable(mapVendorB(bElement({ entities: ['Garantex'] })), 'entities[0]');
    // The entity's name and label are optional.
    const bare = { category: 'Sanctions', riskScoreLevel: 15 };
    assert.equal(risk(mapVendorB(bElement({ entities: [bare] }))).sanctions_hit, true);
  });
});

describe('vendor_c', () => {
  test('scales risk_score ×10 and takes contributions as exposures', () => {
    const r = mapVendorC(fixtureJson('vendors/vendor_c_wallet.json'));
    assert.deepEqual(
      risk(r),
      part({
        score: 62,
        sanctioned: 0.3,
        darknet: 0.2,
        mixer: 0.125,
        last_activity_at: '2024-05-01T10:00:00.000Z',
      }),
    );
  });
  test('a null risk_score is 0; a missing or clearly out-of-range one is unreadable', () => {
    assert.equal(risk(mapVendorC(cBody([], { risk_score: null }))).score, 0);
    assert.equal(risk(mapVendorC(cBody([], { risk_score: 10 }))).score, 100);
    for (const score of [-3, -0.5, -0.00001, 10.5, 10.00001, 12, '5', true, {}])
      unreadable(mapVendorC(cBody([], { risk_score: score })), 'risk_score');
    unreadable(mapVendorC(without(cBody([]), 'risk_score')), 'risk_score');
  });
  test("a float's rounding past a bound reads as the bound (clamped), within 1e-6", () => {
    // The review's figures: computed floats that failed the screening and counted toward the breaker.
    assert.equal(risk(mapVendorC(cBody([], { risk_score: 10.000001 }))).score, 100);
    assert.equal(risk(mapVendorC(cBody([], { risk_score: 10 + 1e-12 }))).score, 100);
    assert.equal(risk(mapVendorC(cBody([], { risk_score: -1e-6 }))).score, 0);
    assert.equal(risk(mapVendorC(cBody([], { risk_score: -1e-9 }))).score, 0);
    const share = (contribution_percentage: number) =>
      risk(mapVendorC(cBody([element({ contribution_percentage })]))).mixer;
    assert.equal(share(100.00000000000001), 1);
    assert.equal(share(100 + 1e-6), 1);
    assert.equal(share(-1e-6), 0);
    assert.equal(share(25), 0.25);
    for (const bad of [100.0001, 101, -0.0001, -3])
      unreadable(
        mapVendorC(cBody([element({ contribution_percentage: bad })])),
        'evaluation_detail.source[0].matched_elements[0].contribution_percentage',
      );
  });
  test("the review's element without contribution_percentage is unreadable, not clean", () => {
    unreadable(
      mapVendorC({
        risk_score: null,
        evaluation_detail: { source: [{ matched_elements: [{ category: 'Sanctions' }] }] },
      }),
      'evaluation_detail.source[0].matched_elements[0].contribution_percentage',
    );
  });
  test('checks each matched element, type and range', () => {
    const path = 'evaluation_detail.source[0].matched_elements[1]';
    for (const [field, value] of [
      ['contribution_percentage', 250],
      ['contribution_percentage', -1],
      ['contribution_percentage', '12'],
      ['contribution_percentage', null],
      ['category', undefined],
      ['category', 7],
      ['category', ''],
    ] as const)
      unreadable(mapVendorC(cBody([element(), element({ [field]: value })])), `${path}.${field}`);
    unreadable(mapVendorC(cBody([element(), 'Sanctions'])), path);
    // Another category's share is checked too, though it feeds no exposure.
    unreadable(
      mapVendorC(cBody([element({ category: 'Exchange', contribution_percentage: 'most' })])),
      'evaluation_detail.source[0].matched_elements[0].contribution_percentage',
    );
    assert.deepEqual(
      risk(mapVendorC(cBody([element({ contribution_percentage: 100 })]))),
      part({ score: 30, mixer: 1 }),
    );
  });
  test('evaluation_detail, when sent, needs its source rules and their matched_elements; destination is optional', () => {
    unreadable(mapVendorC({ risk_score: null, evaluation_detail: 'none' }), 'evaluation_detail');
    unreadable(mapVendorC({ risk_score: null, evaluation_detail: [] }), 'evaluation_detail');
    unreadable(mapVendorC({ risk_score: null, evaluation_detail: {} }), 'evaluation_detail.source');
    unreadable(
      mapVendorC({ risk_score: null, evaluation_detail: { source: null } }),
      'evaluation_detail.source',
    );
    unreadable(
      mapVendorC({ risk_score: null, evaluation_detail: { source: [], destination: 'none' } }),
      'evaluation_detail.destination',
    );
    unreadable(
      mapVendorC({ risk_score: null, evaluation_detail: { source: [], destination: [{ rule_name: 'r' }] } }),
      'evaluation_detail.destination[0].matched_elements',
    );
    unreadable(mapVendorC(7), 'answer');
    // The rules' own risk_score is not used, so not checked.
    const r = mapVendorC({
      risk_score: null,
      evaluation_detail: { source: [{ risk_score: 'high', matched_elements: [element()] }] },
    });
    assert.deepEqual(risk(r), part({ mixer: 0.1 }));
  });
  test('the primary cluster entity (the owner) of a sanctions, darknet or mixer category counts as ownership', () => {
    assert.deepEqual(
      risk(
        mapVendorC(
          cBody([], {
            risk_score: 10,
            cluster_entities: [{ category: 'Sanctions', is_primary_entity: true }],
          }),
        ),
      ),
      part({ score: 100, sanctioned: 1, sanctions_hit: true }),
    );
    assert.deepEqual(
      risk(
        mapVendorC(
          cBody([], { cluster_entities: [{ category: 'darknet market', is_primary_entity: true }] }),
        ),
      ),
      part({ score: 30, darknet: 1 }),
    );
    // Another cluster's entity is only a counterparty: not mapped, its category not needed.
    assert.deepEqual(
      risk(mapVendorC(cBody([], { cluster_entities: [{ category: null, is_primary_entity: false }] }))),
      part({ score: 30 }),
    );
    unreadable(
      mapVendorC(cBody([], { cluster_entities: [{ category: 'Sanctions' }] })),
      'cluster_entities[0].is_primary_entity',
    );
    unreadable(
      mapVendorC(cBody([], { cluster_entities: [{ name: 'x', is_primary_entity: true }] })),
      'cluster_entities[0].category',
    );
    unreadable(mapVendorC(cBody([], { cluster_entities: 'none' })), 'cluster_entities');
  });
  test('optional parts sent as null read as absent; no evaluation_detail is nothing itemised', () => {
    // The review's answers, each refused before.
    assert.deepEqual(
      risk(
        mapVendorC({
          risk_score: 3,
          evaluation_detail: { source: [{ matched_elements: [element()] }], destination: null },
        }),
      ),
      part({ score: 30, mixer: 0.1 }),
    );
    assert.deepEqual(
      risk(mapVendorC(cBody([element()], { cluster_entities: null }))),
      part({ score: 30, mixer: 0.1 }),
    );
    // "No data": no score and nothing itemised, the detail left out or null.
    assert.deepEqual(risk(mapVendorC({ risk_score: null })), emptyRisk());
    assert.deepEqual(risk(mapVendorC({ risk_score: null, evaluation_detail: null })), emptyRisk());
    // A score without its detail: the score counts in full, no exposure is read (nothing itemised).
    assert.deepEqual(risk(mapVendorC({ risk_score: 8 })), part({ score: 80 }));
    assert.deepEqual(risk(mapVendorC({ risk_score: 8, evaluation_detail: null })), part({ score: 80 }));
    // risk_score itself is not optional: null is "no score", absent is not an answer.
    unreadable(mapVendorC({ evaluation_detail: null }), 'risk_score');
  });
});

describe("a refusal names the field, never the vendor's value (that goes to the log only)", () => {
  test('the problem says what was expected and the kind received; the value is apart', () => {
    const cases: Array<[VendorReading, string, string]> = [
      [
        mapVendorC(cBody([], { risk_score: 12 })),
        'risk_score: expected a number from 0 to 10, got a number out of range',
        '12',
      ],
      [
        mapVendorB(
          bElement({ addressRiskIndicators: [indicator({ riskType: 'LICENSED-INTERNAL-CODE-42' })] }),
        ),
        'addressRiskIndicators[0].riskType: expected OWNERSHIP or COUNTERPARTY in any case (an unknown risk type is refused, not guessed), got a string',
        '"LICENSED-INTERNAL-CODE-42"',
      ],
      [
        mapVendorA({ identifications: [{ category: { label: 'Sanctioned: Lazarus Group wallet 7' } }] }),
        'identifications[0].category: expected a non-empty string, got an object',
        '{"label":"Sanctioned: Lazarus Group wallet 7"}',
      ],
      [
        mapVendorA({ identifications: [{ category: null }] }),
        'identifications[0].category: expected a non-empty string, got null',
        'null',
      ],
    ];
    for (const [r, problem, received] of cases) {
      assert.equal(r.ok, false);
      assert.ok(!r.ok);
      assert.equal(r.problem, problem);
      assert.equal(r.received, received);
    }
    const missing = mapVendorA({ identifications: [{}] });
    assert.ok(!missing.ok);
    assert.equal(missing.problem, 'identifications[0].category: expected a non-empty string, missing');
    assert.equal(missing.received, undefined);
    // A long value is cut for the log.
    const long = mapVendorB(bElement({ addressRiskIndicators: [indicator({ riskType: 'x'.repeat(5000) })] }));
    assert.ok(!long.ok && long.received !== undefined && long.received.length <= 200);
  });
});

describe('mappers never throw: an answer is read in range, or refused naming a field', () => {
  test('on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(...Object.values(VENDOR_MAPPERS)), (body, map) => {
        const r = map(body);
        if (!r.ok) {
          assert.match(r.problem, /^[\w.[\]]+: expected /);
          return;
        }
        assert.ok(r.risk.score >= 0 && r.risk.score <= 100);
        for (const x of [r.risk.sanctioned, r.risk.darknet, r.risk.mixer]) assert.ok(x >= 0 && x <= 1);
      }),
    );
  });
  test('a needed field replaced by a value of another type is refused, never read as clean', () => {
    const wrong = fc.oneof(fc.constant(null), fc.boolean(), fc.dictionary(fc.string(), fc.jsonValue()));
    fc.assert(
      fc.property(wrong, fc.integer({ min: 0, max: 5 }), (value, which) => {
        const cases: Array<[VendorReading, string]> = [
          [mapVendorA({ identifications: [{ category: value }] }), 'identifications[0].category'],
          [
            mapVendorB(bElement({ addressRiskIndicators: [indicator({ categoryRiskScoreLevel: value })] })),
            'addressRiskIndicators[0].categoryRiskScoreLevel',
          ],
          [
            mapVendorB(bElement({ addressRiskIndicators: [indicator({ totalVolumeUsd: value })] })),
            'addressRiskIndicators[0].totalVolumeUsd',
          ],
          [
            mapVendorB(bElement({ entities: [entity({ riskScoreLevel: value })] })),
            'entities[0].riskScoreLevel',
          ],
          [
            mapVendorC(cBody([element({ contribution_percentage: value })])),
            'evaluation_detail.source[0].matched_elements[0].contribution_percentage',
          ],
          [mapVendorC(cBody([], { risk_score: value === null ? undefined : value })), 'risk_score'],
        ];
        const [r, field] = cases[which]!;
        unreadable(r, field);
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
