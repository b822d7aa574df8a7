import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import { parseInstant } from '../../../src/services/audit.service.ts';

// The audit filters' `from` / `to` (evaluations, transitions, the CLI's export): ISO 8601, a date
// alone being its UTC midnight, and only dates and times that exist.

const iso = (v: string) => parseInstant('from', v)?.toISOString();

test('a date alone is its UTC midnight; date-times take Z or an offset, seconds and fraction optional', () => {
  assert.equal(iso('2026-03-01'), '2026-03-01T00:00:00.000Z');
  assert.equal(iso('2024-02-29'), '2024-02-29T00:00:00.000Z');
  assert.equal(iso('2000-02-29'), '2000-02-29T00:00:00.000Z');
  assert.equal(iso('2026-12-31T23:59:59Z'), '2026-12-31T23:59:59.000Z');
  assert.equal(iso('2026-01-01T10:00Z'), '2026-01-01T10:00:00.000Z');
  assert.equal(iso('2026-01-01T10:00:00.5+05:30'), '2026-01-01T04:30:00.500Z');
  assert.equal(iso('2026-01-01T10:00-0530'), '2026-01-01T15:30:00.000Z');
  // Finer than a millisecond: rounded up, so that `from <= at < to` holds for times stored to the
  // millisecond (.1235 lies after .123 and before .124).
  assert.equal(iso('2026-01-01T00:00:00.123456789Z'), '2026-01-01T00:00:00.124Z');
  assert.equal(iso('2026-01-01T00:00:00.1235+01:00'), '2025-12-31T23:00:00.124Z');
  assert.equal(iso('2026-01-01T00:00:00.123000Z'), '2026-01-01T00:00:00.123Z');
  assert.equal(iso('2026-01-01T00:00:00.9999Z'), '2026-01-01T00:00:01.000Z');
  // An hour-only offset, as the rules' date fields take it.
  assert.equal(iso('2026-01-01T10:00:00+01'), '2026-01-01T09:00:00.000Z');
  assert.equal(iso('2026-01-01T10:00-03'), '2026-01-01T13:00:00.000Z');
  // A leap second (RFC 3339) is its minute's last millisecond, as the rule engine reads it.
  assert.equal(iso('2016-12-31T23:59:60Z'), '2016-12-31T23:59:59.999Z');
  assert.equal(parseInstant('from', undefined), undefined);
  assert.equal(parseInstant('from', ''), undefined);
});

test('dates and times that do not exist are refused, not rolled over', () => {
  for (const v of [
    '2026-02-30', // would be 2 March
    '2026-02-29', // not a leap year
    '2100-02-29', // nor is 2100
    '2026-04-31',
    '2026-11-31',
    '2026-13-01',
    '2026-00-01',
    '2026-01-00',
    '2026-01-32',
    '2026-02-30T00:00:00Z',
    '2026-01-01T24:00:00Z', // would be the next day
    '2026-01-01T24:00Z',
    '2026-01-01T23:60Z',
    '2026-01-01T10:00+24:00',
    '2026-01-01T10:00+05:60',
  ])
    assert.throws(
      () => parseInstant('to', v),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'INVALID_REQUEST' &&
        /^Invalid request: to: /.test(e.message) &&
        (e.details as { field?: string }).field === 'to',
      v,
    );
});

test('anything but the ISO 8601 forms is refused as before', () => {
  for (const v of [
    'yesterday',
    '2026-1-01',
    '2026-01-01T10:00',
    '2026-01-01 10:00Z',
    '20260101',
    '2026-01-01Z',
  ])
    assert.throws(() => parseInstant('from', v), /from: Must be an ISO 8601 date/, v);
  // Without its zone, a date-time is told that the zone is what it lacks.
  for (const v of ['2026-01-01T10:00', '2026-01-01T10:00:00', '2026-01-01T10:00:00.5'])
    assert.throws(() => parseInstant('from', v), /needs its zone \(Z or ±hh:mm\)/, v);
});
