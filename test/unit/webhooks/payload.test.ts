import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { eventsFor, WEBHOOK_KINDS, type WebhookKind } from '../../../src/domain/webhooks/kinds.ts';
import {
  type NormalisedWebhook,
  normaliseWebhook,
  opensCase,
  severityFromRiskScore,
} from '../../../src/domain/webhooks/payload.ts';

const ID_FIELD: Record<WebhookKind, string> = {
  'txmon-a': 'alert_id',
  'txmon-b': 'alert_id',
  kyc: 'evaluation_id',
  screening: 'hit_id',
};
const FIRST_EVENT: Record<WebhookKind, string> = {
  'txmon-a': 'alert.created',
  'txmon-b': 'alert.created',
  kyc: 'evaluation.completed',
  screening: 'screening.hit',
};

function body(kind: WebhookKind, data: Record<string, unknown> = {}, over: Record<string, unknown> = {}) {
  return {
    id: 'dlv_1',
    event: FIRST_EVENT[kind],
    created_at: '2026-03-02T10:00:00Z',
    data: { [ID_FIELD[kind]]: 'obj_1', ...data },
    ...over,
  };
}

function ok(kind: WebhookKind, b: unknown): NormalisedWebhook {
  const r = normaliseWebhook(kind, b);
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
}

function errors(kind: WebhookKind, b: unknown): string[] {
  const r = normaliseWebhook(kind, b);
  assert.equal(r.ok, false);
  return r.ok ? [] : r.errors;
}

describe('normaliseWebhook: events and vendor object ids', () => {
  it('knows the events of each kind and whether they create or update', () => {
    const table: [WebhookKind, string, boolean][] = [
      ['txmon-a', 'alert.created', true],
      ['txmon-a', 'alert.updated', false],
      ['txmon-b', 'alert.created', true],
      ['txmon-b', 'alert.updated', false],
      ['txmon-b', 'transaction.flagged', true],
      ['kyc', 'evaluation.completed', true],
      ['screening', 'screening.hit', true],
      ['screening', 'screening.updated', false],
    ];
    for (const [kind, event, creation] of table) {
      const v = ok(kind, body(kind, {}, { event }));
      assert.equal(v.event, event);
      assert.equal(v.isCreation, creation, `${kind} ${event}`);
      assert.equal(v.isUpdate, !creation, `${kind} ${event}`);
      assert.equal(v.vendorObjectId, 'obj_1');
    }
    assert.deepEqual(eventsFor('txmon-b'), ['alert.created', 'alert.updated', 'transaction.flagged']);
  });

  it('maps a full body', () => {
    const v = ok(
      'txmon-a',
      body('txmon-a', {
        customer_id: 'cus_9',
        transaction_id: 'tx_7',
        severity: 'high',
        risk_score: 12.5,
        reason: 'structuring',
        extra: { kept: 'in the raw payload only' },
      }),
    );
    assert.deepEqual(v, {
      deliveryId: 'dlv_1',
      event: 'alert.created',
      isCreation: true,
      isUpdate: false,
      vendorObjectId: 'obj_1',
      customerId: 'cus_9',
      transactionId: 'tx_7',
      severity: 'high',
      severityGiven: true,
      riskScore: 12.5,
      decision: null,
      reason: 'structuring',
      createdAt: '2026-03-02T10:00:00.000Z',
    });
  });

  it('an event of another kind, or an unknown one, lists the allowed events', () => {
    assert.deepEqual(errors('txmon-a', body('txmon-a', {}, { event: 'transaction.flagged' })), [
      'event: Must be one of: alert.created, alert.updated',
    ]);
    assert.deepEqual(errors('screening', body('screening', {}, { event: 'Screening.Hit' })), [
      'event: Must be one of: screening.hit, screening.updated',
    ]);
    assert.deepEqual(errors('kyc', body('kyc', {}, { event: 42 })), [
      'event: Must be one of: evaluation.completed',
    ]);
    assert.deepEqual(errors('kyc', body('kyc', {}, { event: undefined })), ['event: Required']);
  });

  it('the vendor object id field is per kind and required', () => {
    for (const kind of WEBHOOK_KINDS) {
      const b = body(kind);
      delete (b.data as Record<string, unknown>)[ID_FIELD[kind]];
      assert.deepEqual(errors(kind, b), [`data.${ID_FIELD[kind]}: Required`]);
    }
    // Another kind's field does not count.
    assert.deepEqual(errors('screening', { ...body('screening'), data: { alert_id: 'x' } }), [
      'data.hit_id: Required',
    ]);
  });

  it('ids are non-empty strings or integers', () => {
    assert.equal(ok('kyc', body('kyc', { evaluation_id: 12345 })).vendorObjectId, '12345');
    assert.equal(ok('kyc', body('kyc', {}, { id: 7 })).deliveryId, '7');
    assert.deepEqual(errors('kyc', body('kyc', { evaluation_id: '  ' }, { id: 1.5 })), [
      'id: Must be a non-empty string',
      'data.evaluation_id: Must be a non-empty string',
    ]);
    // An id of zero-width or format characters only shows nothing either: no object to name.
    assert.deepEqual(errors('kyc', body('kyc', { evaluation_id: '\u200b\u2060' })), [
      'data.evaluation_id: Must be a non-empty string',
    ]);
    assert.deepEqual(errors('kyc', body('kyc', { customer_id: { id: 1 } })), [
      'data.customer_id: Must be a non-empty string',
    ]);
    assert.deepEqual(errors('kyc', body('kyc', { evaluation_id: 'e'.repeat(257) })), [
      'data.evaluation_id: Must be at most 256 characters',
    ]);
  });

  it('an integer id past 2^53 is refused as too large to be exact, to be sent as a string', () => {
    const tooLarge =
      'Number too large to be exact (integer ids must be at most 9007199254740991); send the id as a string';
    const parsed = JSON.parse('{"alert_id":9007199254740993,"customer_id":1e400}') as Record<string, unknown>;
    assert.deepEqual(errors('txmon-a', body('txmon-a', parsed)), [
      `data.alert_id: ${tooLarge}`,
      `data.customer_id: ${tooLarge}`,
    ]);
    assert.equal(
      ok('txmon-a', body('txmon-a', { alert_id: 9007199254740991 })).vendorObjectId,
      '9007199254740991',
    );
    assert.equal(
      ok('txmon-a', body('txmon-a', { alert_id: '9007199254740993' })).vendorObjectId,
      '9007199254740993',
    );
  });
});

describe('normaliseWebhook: body shape', () => {
  it('refuses a body that is not an object', () => {
    for (const b of [null, [], 'text', 42, true, undefined]) {
      assert.deepEqual(errors('txmon-a', b), ['body: Must be a JSON object']);
    }
  });

  it('reports every problem at once, in field order', () => {
    assert.deepEqual(errors('txmon-b', {}), [
      'id: Required',
      'event: Required',
      'data: Required',
      'data.alert_id: Required',
    ]);
    assert.deepEqual(
      errors('txmon-b', {
        id: '',
        event: 'alert.deleted',
        created_at: 'yesterday',
        data: { alert_id: 'a', severity: 'urgent', risk_score: 'x', reason: 5 },
      }),
      [
        'id: Must be a non-empty string',
        'event: Must be one of: alert.created, alert.updated, transaction.flagged',
        'created_at: Must be an ISO 8601 date-time with a time zone',
        'data.severity: Must be one of: low, medium, high, critical',
        'data.risk_score: Must be a number between 0 and 100',
        'data.reason: Must be a string',
      ],
    );
  });

  it('data must be an object', () => {
    assert.deepEqual(errors('screening', body('screening', {}, { data: ['hit_id'] })), [
      'data: Must be an object',
      'data.hit_id: Required',
    ]);
  });

  it('optional fields may be absent or null', () => {
    const v = ok(
      'txmon-a',
      body('txmon-a', { customer_id: null, severity: null, risk_score: null, reason: null }),
    );
    assert.equal(v.customerId, null);
    assert.equal(v.transactionId, null);
    assert.equal(v.riskScore, null);
    assert.equal(v.reason, null);
    assert.equal(v.severity, 'medium');
    assert.equal(ok('txmon-a', body('txmon-a', {}, { created_at: undefined })).createdAt, null);
  });

  it('risk_score must be a number from 0 to 100', () => {
    for (const risk_score of [150, -1, 100.01, '80', true, [50]]) {
      assert.deepEqual(errors('txmon-a', body('txmon-a', { risk_score })), [
        'data.risk_score: Must be a number between 0 and 100',
      ]);
    }
    assert.equal(ok('txmon-a', body('txmon-a', { risk_score: 0 })).riskScore, 0);
    assert.equal(ok('txmon-a', body('txmon-a', { risk_score: 100 })).riskScore, 100);
  });

  it('created_at must be a real ISO 8601 date-time with a zone, normalised to UTC', () => {
    assert.equal(
      ok('kyc', body('kyc', {}, { created_at: '2026-03-02T11:00:00+01:00' })).createdAt,
      '2026-03-02T10:00:00.000Z',
    );
    assert.equal(
      ok('kyc', body('kyc', {}, { created_at: '2026-03-02T10:00Z' })).createdAt,
      '2026-03-02T10:00:00.000Z',
    );
    for (const created_at of [
      '2026-02-30T10:00:00Z',
      '2026-03-02T24:00:00Z',
      '2026-03-02T10:00:00',
      '2026-03-02',
      1772445600,
      'Mon, 02 Mar 2026 10:00:00 GMT',
    ]) {
      assert.deepEqual(errors('kyc', body('kyc', {}, { created_at })), [
        'created_at: Must be an ISO 8601 date-time with a time zone',
      ]);
    }
    // Real instants the database cannot store (a kyc decision's time is a timestamptz).
    for (const created_at of [
      '0000-06-01T00:00:00Z',
      '0001-01-01T00:30:00+01:00',
      '9999-12-31T23:00:00-02:00',
    ])
      assert.deepEqual(errors('kyc', body('kyc', {}, { created_at })), [
        'created_at: Must lie between 0001-01-01 and 9999-12-31 (UTC)',
      ]);
  });
});

describe('normaliseWebhook: severity', () => {
  it('bands risk scores at 25, 50 and 75', () => {
    const cases: [number, string][] = [
      [0, 'low'],
      [24.99, 'low'],
      [25, 'medium'],
      [49.9, 'medium'],
      [50, 'high'],
      [74.999, 'high'],
      [75, 'critical'],
      [100, 'critical'],
    ];
    for (const [score, severity] of cases) {
      assert.equal(severityFromRiskScore(score), severity, String(score));
      const v = ok('screening', body('screening', { risk_score: score }));
      assert.equal(v.severity, severity);
      assert.equal(v.severityGiven, false);
    }
  });

  it('a given severity wins over the risk score; medium when neither', () => {
    assert.equal(ok('txmon-a', body('txmon-a', { severity: 'low', risk_score: 99 })).severity, 'low');
    assert.equal(ok('txmon-b', body('txmon-b')).severity, 'medium');
  });

  it('kyc decisions map to severities and win over the risk score', () => {
    const cases: [string, string][] = [
      ['declined', 'high'],
      ['review', 'medium'],
      ['approved', 'low'],
    ];
    for (const [decision, severity] of cases) {
      const v = ok('kyc', body('kyc', { decision, risk_score: 90 }));
      assert.equal(v.decision, decision);
      assert.equal(v.severity, severity);
    }
    assert.equal(ok('kyc', body('kyc', { decision: 'approved', severity: 'critical' })).severity, 'critical');
    assert.equal(ok('kyc', body('kyc', { risk_score: 80 })).severity, 'critical');
  });

  it('an unknown kyc decision is an error; other kinds ignore decision', () => {
    assert.deepEqual(errors('kyc', body('kyc', { decision: 'rejected' })), [
      'data.decision: Must be one of: approved, declined, review',
    ]);
    assert.equal(ok('screening', body('screening', { decision: 'rejected' })).decision, null);
  });

  it('severity values are case-sensitive', () => {
    assert.deepEqual(errors('txmon-a', body('txmon-a', { severity: 'HIGH' })), [
      'data.severity: Must be one of: low, medium, high, critical',
    ]);
  });
});

describe('opensCase', () => {
  const open = (kind: WebhookKind, data: Record<string, unknown>, event?: string) =>
    opensCase(kind, ok(kind, body(kind, data, event === undefined ? {} : { event })));

  it('opens for high and critical severity, whatever the kind', () => {
    for (const kind of WEBHOOK_KINDS) {
      assert.equal(open(kind, { severity: 'high' }), true, kind);
      assert.equal(open(kind, { risk_score: 80 }), true, kind);
    }
  });

  it('opens for every screening.hit, not for a low screening.updated', () => {
    assert.equal(open('screening', { severity: 'low' }), true);
    assert.equal(open('screening', { severity: 'low' }, 'screening.updated'), false);
  });

  it('opens for kyc declined and review, not approved', () => {
    assert.equal(open('kyc', { decision: 'declined' }), true);
    assert.equal(open('kyc', { decision: 'review' }), true);
    assert.equal(open('kyc', { decision: 'review', severity: 'low' }), true);
    assert.equal(open('kyc', { decision: 'approved' }), false);
    assert.equal(open('kyc', {}), false);
  });

  it('does not open for low or medium transaction-monitoring alerts', () => {
    assert.equal(open('txmon-a', { severity: 'medium' }), false);
    assert.equal(open('txmon-b', { risk_score: 10 }, 'transaction.flagged'), false);
  });
});

describe('normaliseWebhook: properties', () => {
  const kind = fc.constantFrom(...WEBHOOK_KINDS);

  it('never throws on arbitrary JSON, and every error names a field', () => {
    fc.assert(
      fc.property(kind, fc.jsonValue(), (k, value) => {
        const r = normaliseWebhook(k, value);
        return r.ok || (r.errors.length > 0 && r.errors.every((e) => /^[a-z_.]+: \S/.test(e)));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary data of a well-formed envelope', () => {
    fc.assert(
      fc.property(kind, fc.dictionary(fc.string(), fc.jsonValue()), (k, data) => {
        const r = normaliseWebhook(k, body(k, data));
        return r.ok ? typeof r.value.vendorObjectId === 'string' : r.errors.length > 0;
      }),
      { numRuns: 300 },
    );
  });
});
