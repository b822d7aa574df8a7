import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveRuleSettings } from '../../../src/domain/rules/settings.ts';
import { NOT_BOOLEAN, NOT_NUMBER, runRule, triggers } from './helpers.ts';

describe('MICA-GOV-001 board access and MICA-GOV-003 third-party oversight (evidence)', () => {
  const cases = [
    ['MICA-GOV-001', 'compliance_officer_board_access_documented'],
    ['MICA-GOV-003', 'third_party_oversight_active'],
  ] as const;
  for (const [id, field] of cases) {
    it(`${id} triggers (alert, high, alert_management) unless ${field}`, () => {
      const r = runRule(id, { [field]: false });
      assert.deepEqual(
        [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
        [true, 'alert', 'high', ['alert_management'], { [field]: false }],
      );
      assert.deepEqual(runRule(id, { [field]: true }).conditions_met, { [field]: true });
      assert.equal(triggers(id, { [field]: true }), false);
    });

    it(`${id} fails closed when ${field} is absent or wrong-typed`, () => {
      assert.equal(triggers(id, {}), true);
      for (const v of NOT_BOOLEAN) assert.equal(triggers(id, { [field]: v }), true);
    });
  }
});

describe('MICA-GOV-002 review and MICA-GOV-004 training (days > 365)', () => {
  const cases = [
    [
      'MICA-GOV-002',
      'days_since_last_review',
      'days_since_last_review_gt_365',
      'medium',
      'alert_compliance_officer',
    ],
    [
      'MICA-GOV-004',
      'days_since_last_training',
      'days_since_last_training_gt_365',
      'low',
      'alert_hr_compliance',
    ],
  ] as const;
  for (const [id, field, cond, severity, action] of cases) {
    it(`${id} triggers strictly above 365 days`, () => {
      assert.equal(triggers(id, { [field]: 365 }), false);
      assert.equal(triggers(id, { [field]: 365.5 }), true);
      const r = runRule(id, { [field]: 366 });
      assert.deepEqual(
        [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
        [true, 'alert', severity, [action], { [cond]: true }],
      );
      assert.deepEqual(runRule(id, { [field]: 10 }).conditions_met, { [cond]: false });
    });

    it(`${id} cannot trigger without a numeric ${field}`, () => {
      assert.equal(triggers(id, {}), false);
      for (const v of NOT_NUMBER) assert.equal(triggers(id, { [field]: v }), false);
    });
  }

  it('follows per-client day thresholds while keeping the condition names', () => {
    const settings = resolveRuleSettings({ thresholds: { governance_review_days: 180, training_days: 730 } });
    const review = runRule('MICA-GOV-002', { days_since_last_review: 181 }, { settings });
    assert.deepEqual(review.conditions_met, { days_since_last_review_gt_365: true });
    assert.equal(triggers('MICA-GOV-004', { days_since_last_training: 400 }, { settings }), false);
    assert.equal(triggers('MICA-GOV-004', { days_since_last_training: 731 }, { settings }), true);
  });
});

describe('MICA-CDD-007 periodic CDD review', () => {
  it('triggers (fail, medium, request_kyc) on an overdue review or a changed risk profile', () => {
    const r = runRule('MICA-CDD-007', { days_since_last_cdd_review: 366 });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
      [true, 'fail', 'medium', ['request_kyc'], { cdd_review_overdue: true, risk_profile_changed: false }],
    );
    assert.equal(triggers('MICA-CDD-007', { days_since_last_cdd_review: 365 }), false);
    assert.deepEqual(
      runRule('MICA-CDD-007', { days_since_last_cdd_review: 10, risk_profile_changed: true }).conditions_met,
      {
        cdd_review_overdue: false,
        risk_profile_changed: true,
      },
    );
    assert.equal(triggers('MICA-CDD-007', { risk_profile_changed: true }), true);
    assert.equal(
      triggers('MICA-CDD-007', { days_since_last_cdd_review: 500, risk_profile_changed: false }),
      true,
    );
  });

  it('cannot trigger without the facts', () => {
    assert.equal(triggers('MICA-CDD-007', {}), false);
    for (const v of NOT_NUMBER)
      assert.equal(triggers('MICA-CDD-007', { days_since_last_cdd_review: v }), false);
    for (const v of NOT_BOOLEAN) assert.equal(triggers('MICA-CDD-007', { risk_profile_changed: v }), false);
  });
});

describe('MICA-RPT-002 STR filing deadline', () => {
  // NOW (helpers) is Wednesday 2026-07-01 10:00 UTC.
  it('triggers (alert, high) once 2 business days have passed without filing', () => {
    const r = runRule('MICA-RPT-002', { str_detected_at: '2026-06-29T09:00:00Z' });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
      [true, 'alert', 'high', ['alert_compliance_officer'], { str_filed: false, str_overdue: true }],
    );
    // Exactly at the deadline is not yet "more than" 2 business days.
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T10:00:00Z' }), false);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T11:00:00Z' }), false);
  });

  it('does not trigger once the STR is filed', () => {
    const r = runRule('MICA-RPT-002', { str_detected_at: '2026-06-20T09:00:00Z', str_filed: true });
    assert.equal(r.triggered, false);
    assert.deepEqual(r.conditions_met, { str_filed: true, str_overdue: true });
  });

  it('treats absent or wrong-typed str_filed as not filed', () => {
    for (const v of NOT_BOOLEAN) {
      assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-20T09:00:00Z', str_filed: v }), true);
    }
  });

  it('does not count the weekend', () => {
    // Detected Friday 09:00; on Monday 10:00 (3 calendar days later) only 1 business day has passed.
    const env = { now: new Date('2026-06-29T10:00:00Z') };
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-26T09:00:00Z' }, { env }), false);
    const tuesdayNoon = { now: new Date('2026-06-30T12:00:00Z') };
    assert.equal(
      triggers('MICA-RPT-002', { str_detected_at: '2026-06-26T09:00:00Z' }, { env: tuesdayNoon }),
      true,
    );
  });

  it('does not count holidays from env.isHoliday', () => {
    const env = { isHoliday: (d: string) => d === '2026-06-30' };
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T09:00:00Z' }, { env }), false);
  });

  it("uses the client's holiday country and time zone unless env supplies a calendar", () => {
    const settings = resolveRuleSettings({ time_zone: 'Europe/Berlin', holiday_country: 'DE' });
    // Thursday 2 April 2026; Good Friday and Easter Monday are German public holidays.
    const data = { str_detected_at: '2026-04-02T08:00:00Z' };
    const now = new Date('2026-04-06T12:00:00Z');
    assert.equal(triggers('MICA-RPT-002', data, { env: { now } }), true);
    assert.equal(triggers('MICA-RPT-002', data, { settings, env: { now } }), false);
    assert.equal(
      triggers('MICA-RPT-002', data, { settings, env: { now: new Date('2026-04-08T09:00:00Z') } }),
      true,
    );
    assert.equal(triggers('MICA-RPT-002', data, { settings, env: { now, isHoliday: () => false } }), true);
  });

  it("counts in the client's time zone where the local date differs", () => {
    // Friday 20:00 UTC = Saturday 08:00 in Auckland (NZST): UTC deadline Tuesday 20:00 UTC,
    // Auckland deadline Tuesday 08:00 local = Monday 20:00 UTC.
    const data = { str_detected_at: '2026-06-26T20:00:00Z' };
    const env = { now: new Date('2026-06-30T10:00:00Z') };
    const auckland = resolveRuleSettings({ time_zone: 'Pacific/Auckland' });
    assert.equal(triggers('MICA-RPT-002', data, { env }), false);
    assert.equal(triggers('MICA-RPT-002', data, { settings: auckland, env }), true);
  });

  it("reads a date alone as that day in the client's calendar, not as UTC midnight", () => {
    // Detected Tuesday 24 Nov 2026 in New York; Thursday 26 is Thanksgiving: two business days are
    // Wednesday 25 and Friday 27, so on Thursday afternoon the STR is not yet overdue. Read as UTC
    // midnight (Monday 19:00 local) it was overdue from Wednesday evening.
    const ny = resolveRuleSettings({ time_zone: 'America/New_York', holiday_country: 'US' });
    const thursday = { now: new Date('2026-11-26T18:20:00Z') };
    assert.equal(
      triggers('MICA-RPT-002', { str_detected_at: '2026-11-24' }, { settings: ny, env: thursday }),
      false,
    );
    const saturday = { now: new Date('2026-11-28T12:00:00Z') };
    assert.equal(
      triggers('MICA-RPT-002', { str_detected_at: '2026-11-24' }, { settings: ny, env: saturday }),
      true,
    );
  });

  it('reads every date-time form the API accepts: an hour-only offset, many fraction digits', () => {
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T11:30:00+02' }), true);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T12:30:00+02' }), false);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T09:30:00.1234567890Z' }), true);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T04:30:00-05' }), true);
  });

  it('follows the per-client number of business days', () => {
    const settings = resolveRuleSettings({ thresholds: { str_filing_business_days: 3 } });
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T09:00:00Z' }, { settings }), false);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-26T09:00:00Z' }, { settings }), true);
  });

  it('reads ISO 8601 dates, date-times with offsets, and offset-less times as UTC', () => {
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-26' }), true);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T11:30:00+02:00' }), true);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T09:30:00.123Z' }), true);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T09:30:00' }), true);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T10:30:00' }), false);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T12:30:00+02:00' }), false);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T04:30:00-05:00' }), true);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T05:30:00-05:00' }), false);
  });

  it('cannot trigger on an absent, future, unparsable or wrong-typed date', () => {
    const bad = [
      '',
      'yesterday',
      'June 29, 2026',
      '2026-02-30',
      '2026-13-01',
      '2026-06-29T25:00:00Z',
      '29/06/2026',
    ];
    for (const v of [undefined, ...bad, 1_751_000_000_000, true, null, {}]) {
      const r = runRule('MICA-RPT-002', v === undefined ? {} : { str_detected_at: v });
      assert.equal(r.triggered, false, String(v));
      assert.deepEqual(r.conditions_met, { str_filed: false, str_overdue: false });
    }
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-07-02T09:00:00Z' }), false);
  });

  it('a detection at the end of the calendar is future, not an error', () => {
    for (const v of ['9999-12-31', '9999-12-31T23:59:59.999Z', '9999-12-30T00:00:00Z']) {
      const r = runRule('MICA-RPT-002', { str_detected_at: v });
      assert.deepEqual(r.conditions_met, { str_filed: false, str_overdue: false }, v);
    }
  });

  it('reads a leap second as the last millisecond of its minute', () => {
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-26T23:59:60Z' }), true);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-29T23:59:60Z' }), false);
    assert.equal(triggers('MICA-RPT-002', { str_detected_at: '2026-06-26T23:58:60Z' }), false);
  });
});
