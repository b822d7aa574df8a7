// Vendor webhook bodies of CONTRACT §6 → one normalised shape. All four kinds share
// `{ id, event, created_at, data }`; they differ only in the table of kinds.ts. Every problem is
// reported at once as `<field>: <message>`, the wording of the spec's validation errors.
import { isStorableInstant, STORABLE_INSTANT_RANGE } from '../rules/facts.ts';
import type { Severity } from '../rules/types.ts';
import { hasVisibleText } from '../visible-text.ts';
import { type EventRole, isWebhookKind, KIND_SPECS, WEBHOOK_KINDS, type WebhookKind } from './kinds.ts';

export type KycDecision = 'approved' | 'declined' | 'review';

export interface NormalisedWebhook {
  deliveryId: string;
  event: string;
  isCreation: boolean;
  isUpdate: boolean;
  vendorObjectId: string;
  customerId: string | null;
  transactionId: string | null;
  severity: Severity;
  /** Whether `severity` came from the payload's own `severity` field rather than a mapping. */
  severityGiven: boolean;
  riskScore: number | null;
  /** KYC only; null for the other kinds. */
  decision: KycDecision | null;
  reason: string | null;
  /** The vendor's `created_at` as ISO 8601 UTC; null when absent. */
  createdAt: string | null;
}

export type NormaliseResult = { ok: true; value: NormalisedWebhook } | { ok: false; errors: string[] };

const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];
const DECISIONS: readonly KycDecision[] = ['approved', 'declined', 'review'];
const DECISION_SEVERITY: Readonly<Record<KycDecision, Severity>> = {
  declined: 'high',
  review: 'medium',
  approved: 'low',
};
// Risk-score bands, highest first: the first floor the score reaches gives the severity.
const RISK_BANDS: readonly [number, Severity][] = [
  [75, 'critical'],
  [50, 'high'],
  [25, 'medium'],
  [0, 'low'],
];
// Ids become storage keys (dedup on delivery id and vendor object id); a bound keeps them sane.
const MAX_ID_LENGTH = 256;
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const oneOf = (values: readonly string[]) => `Must be one of: ${values.join(', ')}`;

/** The severity band of a 0–100 risk score (≥ 75 critical, ≥ 50 high, ≥ 25 medium, else low). */
export function severityFromRiskScore(score: number): Severity {
  for (const [floor, severity] of RISK_BANDS) if (score >= floor) return severity;
  return 'low';
}

// Reads the fields of one object, collecting errors under a path prefix. Null counts as absent:
// vendors commonly send `"reason": null` for "no value".
function reader(obj: Json, prefix: string, errors: string[]) {
  const present = (key: string) => Object.hasOwn(obj, key) && obj[key] !== null && obj[key] !== undefined;
  const fail = (key: string, message: string) => {
    errors.push(`${prefix}${key}: ${message}`);
    return null;
  };
  return {
    // Ids: non-empty strings, or integers (some vendors number their objects) kept as strings.
    id(key: string, required: boolean): string | null {
      if (!present(key)) return required ? fail(key, 'Required') : null;
      const v = obj[key];
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
      // Past 2^53 a JSON number no longer holds every integer: 9007199254740993 reads as …992, and
      // two vendor objects would share an id. Refused, saying why, rather than called "not a string".
      if (typeof v === 'number' && (Number.isInteger(v) || !Number.isFinite(v)))
        return fail(
          key,
          'Number too large to be exact (integer ids must be at most 9007199254740991); send the id as a string',
        );
      if (typeof v !== 'string' || !hasVisibleText(v)) return fail(key, 'Must be a non-empty string');
      if (v.length > MAX_ID_LENGTH) return fail(key, `Must be at most ${MAX_ID_LENGTH} characters`);
      return v;
    },
    text(key: string): string | null {
      if (!present(key)) return null;
      const v = obj[key];
      return typeof v === 'string' ? v : fail(key, 'Must be a string');
    },
    choice<T extends string>(key: string, values: readonly T[]): T | null {
      if (!present(key)) return null;
      const v = obj[key];
      const match = values.find((x) => x === v);
      return match ?? fail(key, oneOf(values));
    },
    score(key: string): number | null {
      if (!present(key)) return null;
      const v = obj[key];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100) {
        return fail(key, 'Must be a number between 0 and 100');
      }
      return v;
    },
    dateTime(key: string): string | null {
      if (!present(key)) return null;
      const v = obj[key];
      const iso = typeof v === 'string' ? isoDateTime(v) : null;
      if (iso === null) return fail(key, 'Must be an ISO 8601 date-time with a time zone');
      return isStorableInstant(new Date(iso)) ? iso : fail(key, STORABLE_INSTANT_RANGE);
    },
  };
}

// Date.parse rolls 2026-02-30 over into March, so the calendar fields are checked separately.
function isoDateTime(s: string): string | null {
  const m = ISO_DATE_TIME.exec(s);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) =>
    Number(x ?? 0),
  ) as [number, number, number, number, number, number];
  // Day 0 of the next month is the last day of this one.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const fieldsValid =
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
  const ms = fieldsValid ? Date.parse(s) : Number.NaN;
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * Validates a parsed vendor body and maps it to the fields an alert needs. Severity: the payload's
 * own, else (kyc) from the decision, else from risk_score, else medium.
 */
export function normaliseWebhook(kind: WebhookKind, body: unknown): NormaliseResult {
  if (!isWebhookKind(kind)) return { ok: false, errors: [`kind: ${oneOf(WEBHOOK_KINDS)}`] };
  if (!isObject(body)) return { ok: false, errors: ['body: Must be a JSON object'] };
  const spec = KIND_SPECS[kind];
  const errors: string[] = [];
  const top = reader(body, '', errors);

  const deliveryId = top.id('id', true);
  const eventNames = Object.keys(spec.events);
  let role: EventRole | null = null;
  const event = body.event;
  if (event === undefined || event === null) errors.push('event: Required');
  else if (typeof event !== 'string' || !Object.hasOwn(spec.events, event))
    errors.push(`event: ${oneOf(eventNames)}`);
  else role = spec.events[event] ?? null;
  const createdAt = top.dateTime('created_at');

  let data: Json = {};
  if (body.data === undefined || body.data === null) errors.push('data: Required');
  else if (!isObject(body.data)) errors.push('data: Must be an object');
  else data = body.data;

  const d = reader(data, 'data.', errors);
  const vendorObjectId = d.id(spec.vendorObjectIdField, true);
  const customerId = d.id('customer_id', false);
  const transactionId = d.id('transaction_id', false);
  const givenSeverity = d.choice('severity', SEVERITIES);
  const riskScore = d.score('risk_score');
  // `decision` means something only for KYC; elsewhere it stays in the raw payload, unread.
  const decision = kind === 'kyc' ? d.choice('decision', DECISIONS) : null;
  const reason = d.text('reason');

  if (errors.length > 0 || deliveryId === null || vendorObjectId === null || role === null) {
    return { ok: false, errors };
  }
  let severity: Severity = 'medium';
  if (givenSeverity !== null) severity = givenSeverity;
  else if (decision !== null) severity = DECISION_SEVERITY[decision];
  else if (riskScore !== null) severity = severityFromRiskScore(riskScore);

  return {
    ok: true,
    value: {
      deliveryId,
      event: event as string,
      isCreation: role === 'creation',
      isUpdate: role === 'update',
      vendorObjectId,
      customerId,
      transactionId,
      severity,
      severityGiven: givenSeverity !== null,
      riskScore,
      decision,
      reason,
      createdAt,
    },
  };
}

/** Whether the delivery opens a case: severity high or critical, every screening.hit, kyc declined or review. */
export function opensCase(
  kind: WebhookKind,
  w: Pick<NormalisedWebhook, 'event' | 'severity' | 'decision'>,
): boolean {
  if (w.severity === 'high' || w.severity === 'critical') return true;
  if (kind === 'screening' && w.event === 'screening.hit') return true;
  return kind === 'kyc' && (w.decision === 'declined' || w.decision === 'review');
}
