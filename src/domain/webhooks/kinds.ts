// The four vendor kinds of CONTRACT §6 and their per-kind facts, as one table so adding a vendor
// is adding a row: signature header, the data field naming the vendor object, and the events it
// sends (each either creating or updating an alert).

export type WebhookKind = 'txmon-a' | 'txmon-b' | 'kyc' | 'screening';
export type EventRole = 'creation' | 'update';

export interface WebhookKindSpec {
  /** Lower-case header carrying the HMAC (Node lower-cases incoming header names). */
  signatureHeader: string;
  /** Field of `data` holding the vendor's own object id. */
  vendorObjectIdField: string;
  events: Readonly<Record<string, EventRole>>;
}

export const WEBHOOK_KINDS: readonly WebhookKind[] = Object.freeze([
  'txmon-a',
  'txmon-b',
  'kyc',
  'screening',
]);

/** Optional on every kind: when present the signed bytes are `<timestamp>.<raw body>`. */
export const TIMESTAMP_HEADER = 'x-signature-timestamp';

export const KIND_SPECS: Readonly<Record<WebhookKind, WebhookKindSpec>> = Object.freeze({
  'txmon-a': {
    signatureHeader: 'x-signature-256',
    vendorObjectIdField: 'alert_id',
    events: { 'alert.created': 'creation', 'alert.updated': 'update' },
  },
  'txmon-b': {
    signatureHeader: 'x-signature-256',
    vendorObjectIdField: 'alert_id',
    events: { 'alert.created': 'creation', 'alert.updated': 'update', 'transaction.flagged': 'creation' },
  },
  kyc: {
    // Despite its name the header carries the HMAC, never the plain secret (CONTRACT §6).
    signatureHeader: 'kyc-webhook-secret',
    vendorObjectIdField: 'evaluation_id',
    // One evaluation is reported once: a second delivery is a duplicate, not an update.
    events: { 'evaluation.completed': 'creation' },
  },
  screening: {
    signatureHeader: 'x-screening-signature',
    vendorObjectIdField: 'hit_id',
    events: { 'screening.hit': 'creation', 'screening.updated': 'update' },
  },
});

/** Whether the string names a vendor kind (a webhook path segment). */
export function isWebhookKind(s: string): s is WebhookKind {
  return Object.hasOwn(KIND_SPECS, s);
}

/** The lower-case signature header of a vendor kind. */
export function signatureHeaderFor(kind: WebhookKind): string {
  if (!isWebhookKind(kind)) throw new RangeError(`unknown webhook kind: ${String(kind)}`);
  return KIND_SPECS[kind].signatureHeader;
}

/** The event names a vendor kind may send, in table order. */
export function eventsFor(kind: WebhookKind): string[] {
  if (!isWebhookKind(kind)) throw new RangeError(`unknown webhook kind: ${String(kind)}`);
  return Object.keys(KIND_SPECS[kind].events);
}
