// Webhook signature check of CONTRACT §6: lower-case hex HMAC-SHA256 over the raw body bytes
// (before any parsing), keyed with the UTF-8 bytes of a registration secret, optional `sha256=`
// prefix, optional `X-Signature-Timestamp` (then `<timestamp>.<body>` is signed, ±300 s).
// node:crypto is used for computation only; it is the fast path at 1,500 deliveries/s.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type VerifyFailure = 'missing' | 'malformed' | 'mismatch' | 'timestamp_out_of_range';
/** `secretIndex` is the first secret that verifies, `secretIndexes` all of them (in order). */
export type VerifyResult =
  | { ok: true; secretIndex: number; secretIndexes: number[] }
  | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  rawBody: Uint8Array;
  /** Value of the kind's signature header; undefined when absent. */
  header: string | undefined;
  /** Value of `x-signature-timestamp`; undefined when the vendor sent none. */
  timestampHeader?: string | undefined;
  /** Active secrets of the candidate registrations, tried in order (rotation). */
  secrets: readonly string[];
  now: Date;
  toleranceSeconds?: number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;
const SHA256_BYTES = 32;
const PREFIX = 'sha256=';
// Exactly 64 hex digits. Upper case is accepted too: it decodes to the same tag, so refusing it
// would reject a correctly signed delivery without adding any security.
const HEX_TAG = /^[0-9a-fA-F]{64}$/;
// Unix seconds: digits only (no sign, no fraction, no exponent); 15 digits keep it a safe integer.
const UNIX_SECONDS = /^[0-9]{1,15}$/;
const encoder = new TextEncoder();

/** HMAC-SHA256 of the message parts under the key, as 32 bytes. */
export function hmacSha256(key: Uint8Array, ...parts: Uint8Array[]): Uint8Array {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return new Uint8Array(mac.digest());
}

/** Lower-case hex HMAC-SHA256 over the raw body (and `<timestamp>.` when given): what a vendor sends. */
export function computeSignature(secret: string, rawBody: Uint8Array, timestamp?: string): string {
  const parts = timestamp === undefined ? [rawBody] : [encoder.encode(`${timestamp}.`), rawBody];
  return Buffer.from(hmacSha256(encoder.encode(secret), ...parts)).toString('hex');
}

/** The 32-byte tag of a signature header value (`[sha256=]<64 hex>`), or null when malformed. */
export function parseSignatureHeader(header: string): Uint8Array | null {
  let value = header.trim();
  if (value.startsWith(PREFIX)) value = value.slice(PREFIX.length);
  if (!HEX_TAG.test(value)) return null;
  return new Uint8Array(Buffer.from(value, 'hex'));
}

/** Constant-time check of a full-length tag against HMAC-SHA256(key, message); shorter tags never match. */
export function hmacMatches(key: Uint8Array, message: Uint8Array, tag: Uint8Array): boolean {
  if (tag.length !== SHA256_BYTES) return false;
  return timingSafeEqual(hmacSha256(key, message), tag);
}

// Within tolerance both ways: a clock running ahead is as suspect as a replayed old delivery.
function timestampInRange(seconds: number, now: Date, toleranceSeconds: number): boolean {
  return Math.abs(now.getTime() - seconds * 1000) <= toleranceSeconds * 1000;
}

/**
 * Verifies a webhook signature against every secret (no early exit, so timing does not reveal
 * which one matched); returns the index of the first matching secret. Never throws on what the
 * sender controls; an invalid `now` or tolerance is a programming error and throws.
 */
export function verifySignature(input: VerifyInput): VerifyResult {
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(input.now instanceof Date) || Number.isNaN(input.now.getTime())) {
    throw new RangeError('now must be a valid Date');
  }
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new RangeError('toleranceSeconds must be >= 0');

  if (typeof input.header !== 'string' || input.header.trim() === '') return { ok: false, reason: 'missing' };
  const tag = parseSignatureHeader(input.header);
  if (tag === null) return { ok: false, reason: 'malformed' };

  let prefix: Uint8Array | null = null;
  if (input.timestampHeader !== undefined) {
    const ts = String(input.timestampHeader).trim();
    if (!UNIX_SECONDS.test(ts)) return { ok: false, reason: 'malformed' };
    // Checked before any HMAC work: a stale replay costs nothing to refuse.
    if (!timestampInRange(Number(ts), input.now, tolerance))
      return { ok: false, reason: 'timestamp_out_of_range' };
    // The timestamp is signed as sent, so the vendor's exact digits are what we hash.
    prefix = encoder.encode(`${ts}.`);
  }

  const body = input.rawBody instanceof Uint8Array ? input.rawBody : new Uint8Array(0);
  const matched: number[] = [];
  input.secrets.forEach((secret, i) => {
    // An empty secret is a key anyone can compute with: it never authenticates anything.
    if (typeof secret !== 'string' || secret === '') return;
    const key = encoder.encode(secret);
    const expected = prefix === null ? hmacSha256(key, body) : hmacSha256(key, prefix, body);
    if (timingSafeEqual(expected, tag)) matched.push(i);
  });
  return matched.length === 0
    ? { ok: false, reason: 'mismatch' }
    : { ok: true, secretIndex: matched[0]!, secretIndexes: matched };
}

export { signatureHeaderFor, TIMESTAMP_HEADER } from './kinds.ts';
