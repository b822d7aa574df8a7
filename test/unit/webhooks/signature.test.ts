import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  computeSignature,
  signatureHeaderFor,
  TIMESTAMP_HEADER,
  type VerifyInput,
  verifySignature,
} from '../../../src/domain/webhooks/signature.ts';
import { toHex, utf8 } from './helpers.ts';

const SECRET = 'whsec-test-1';
const now = new Date('2026-03-02T10:00:00Z');
const nowSeconds = now.getTime() / 1000;
const body = utf8('{"id":"d1","event":"alert.created","data":{"alert_id":"a1"}}');
const sig = computeSignature(SECRET, body);
const verify = (over: Partial<VerifyInput>) =>
  verifySignature({ rawBody: body, header: sig, secrets: [SECRET], now, ...over });
const MISMATCH = { ok: false, reason: 'mismatch' };
const MALFORMED = { ok: false, reason: 'malformed' };

describe('signatureHeaderFor', () => {
  it('names the per-vendor header of CONTRACT §6 in lower case', () => {
    assert.equal(signatureHeaderFor('txmon-a'), 'x-signature-256');
    assert.equal(signatureHeaderFor('txmon-b'), 'x-signature-256');
    assert.equal(signatureHeaderFor('kyc'), 'kyc-webhook-secret');
    assert.equal(signatureHeaderFor('screening'), 'x-screening-signature');
    assert.equal(TIMESTAMP_HEADER, 'x-signature-timestamp');
    assert.throws(() => signatureHeaderFor('github' as never), RangeError);
  });
});

describe('verifySignature: header forms', () => {
  it('accepts the lower-case hex tag, with or without sha256=', () => {
    assert.match(sig, /^[0-9a-f]{64}$/);
    assert.deepEqual(verify({}), { ok: true, secretIndex: 0, secretIndexes: [0] });
    assert.deepEqual(verify({ header: `sha256=${sig}` }), { ok: true, secretIndex: 0, secretIndexes: [0] });
  });

  it('accepts upper-case hex (same tag bytes) but not an upper-case prefix', () => {
    assert.deepEqual(verify({ header: sig.toUpperCase() }), { ok: true, secretIndex: 0, secretIndexes: [0] });
    assert.deepEqual(verify({ header: `SHA256=${sig}` }), MALFORMED);
  });

  it('a missing or blank header is missing', () => {
    for (const header of [undefined, '', '   '])
      assert.deepEqual(verify({ header }), { ok: false, reason: 'missing' });
  });

  it('anything but 64 hex digits is malformed', () => {
    for (const header of [
      sig.slice(0, 63),
      sig.slice(0, 32), // a truncated 128-bit tag
      `${sig}0`,
      `${sig}00`,
      `${sig.slice(0, 63)}g`,
      'sha256=',
      `sha256= ${sig}`,
      `sha256=sha256=${sig}`,
      `sha1=${sig}`,
      `v1,${sig}`,
      Buffer.from(sig, 'hex').toString('base64'),
    ]) {
      assert.deepEqual(verify({ header }), MALFORMED, header);
    }
  });

  it('ignores surrounding whitespace of the header', () => {
    assert.equal(verify({ header: ` ${sig} ` }).ok, true);
  });
});

describe('verifySignature: body and secrets', () => {
  it('one flipped byte in the body, or in the tag, is a mismatch', () => {
    const tampered = new Uint8Array(body);
    tampered[10] = (tampered[10] ?? 0) ^ 0x20;
    assert.deepEqual(verify({ rawBody: tampered }), MISMATCH);
    const last = sig.at(-1) === '0' ? '1' : '0';
    assert.deepEqual(verify({ header: sig.slice(0, 63) + last }), MISMATCH);
  });

  it('a wrong secret, no secrets, or an empty secret never verify', () => {
    assert.deepEqual(verify({ secrets: ['whsec-test-2'] }), MISMATCH);
    assert.deepEqual(verify({ secrets: [] }), MISMATCH);
    // Signed with the empty key: anyone could compute it, so it is refused.
    assert.deepEqual(verify({ header: computeSignature('', body), secrets: [''] }), MISMATCH);
  });

  it('tries every secret during rotation and reports the first that matches, and all that do', () => {
    assert.deepEqual(verify({ secrets: ['old', SECRET] }), { ok: true, secretIndex: 1, secretIndexes: [1] });
    assert.deepEqual(verify({ secrets: [SECRET, 'new', SECRET] }), {
      ok: true,
      secretIndex: 0,
      secretIndexes: [0, 2],
    });
    assert.deepEqual(verify({ secrets: ['', SECRET] }), { ok: true, secretIndex: 1, secretIndexes: [1] });
  });

  it('the secret is keyed as UTF-8 bytes', () => {
    const secret = 'clé-🔑';
    const header = computeSignature(secret, body);
    assert.deepEqual(verify({ header, secrets: [secret] }), { ok: true, secretIndex: 0, secretIndexes: [0] });
    assert.deepEqual(verify({ header, secrets: [secret.normalize('NFD')] }), MISMATCH);
  });

  it('an empty body and a unicode body verify over their exact bytes', () => {
    const empty = new Uint8Array(0);
    assert.equal(verify({ rawBody: empty, header: computeSignature(SECRET, empty) }).ok, true);
    const nfc = utf8('{"reason":"Zoë 🚀 Ünïcödé"}');
    const nfd = utf8('{"reason":"Zoë 🚀 Ünïcödé"}'.normalize('NFD'));
    const header = computeSignature(SECRET, nfc);
    assert.equal(verify({ rawBody: nfc, header }).ok, true);
    assert.deepEqual(verify({ rawBody: nfd, header }), MISMATCH);
  });

  it('the tag is HMAC-SHA256 hex (cross-checked with node:crypto)', async () => {
    const { createHmac } = await import('node:crypto');
    assert.equal(sig, createHmac('sha256', SECRET).update(body).digest('hex'));
    assert.equal(toHex(new Uint8Array(Buffer.from(sig, 'hex'))), sig);
  });
});

describe('verifySignature: timestamp', () => {
  const signedAt = (ts: number | string) => ({
    timestampHeader: String(ts),
    header: computeSignature(SECRET, body, String(ts)),
  });

  it('signs <timestamp>.<body> and accepts exactly ±300 s', () => {
    for (const offset of [0, -300, 300, -1, 1]) {
      assert.deepEqual(
        verify(signedAt(nowSeconds + offset)),
        { ok: true, secretIndex: 0, secretIndexes: [0] },
        String(offset),
      );
    }
  });

  it('refuses a timestamp 301 s in the past or the future', () => {
    for (const offset of [-301, 301, -86_400, 10 ** 9]) {
      assert.deepEqual(verify(signedAt(nowSeconds + offset)), {
        ok: false,
        reason: 'timestamp_out_of_range',
      });
    }
    assert.deepEqual(verify(signedAt(0)), { ok: false, reason: 'timestamp_out_of_range' });
  });

  it('compares with millisecond precision: 300.001 s away is out of range', () => {
    const ts = nowSeconds - 300;
    assert.equal(verify({ ...signedAt(ts), now: new Date(now.getTime() + 1) }).ok, false);
  });

  it('honours a custom tolerance', () => {
    assert.equal(verify({ ...signedAt(nowSeconds - 30), toleranceSeconds: 60 }).ok, true);
    assert.equal(verify({ ...signedAt(nowSeconds - 90), toleranceSeconds: 60 }).ok, false);
  });

  it('a non-integer timestamp is malformed', () => {
    for (const ts of [
      '',
      ' ',
      'abc',
      '1.5',
      '-5',
      '+1772445600',
      '1e9',
      '0x10',
      '1772445600.0',
      '1'.repeat(16),
    ]) {
      assert.deepEqual(verify({ header: sig, timestampHeader: ts }), MALFORMED, JSON.stringify(ts));
    }
  });

  it('the timestamp is part of the signed bytes', () => {
    // Signed without a timestamp but sent with one, and the other way round.
    assert.deepEqual(verify({ timestampHeader: String(nowSeconds) }), MISMATCH);
    assert.deepEqual(verify({ header: signedAt(nowSeconds).header }), MISMATCH);
    // Replaying a signed delivery under a fresher timestamp breaks the signature.
    assert.deepEqual(verify({ ...signedAt(nowSeconds - 10), timestampHeader: String(nowSeconds) }), MISMATCH);
  });

  it('an invalid clock is a programming error, not a verdict', () => {
    assert.throws(() => verify({ now: new Date(Number.NaN) }), RangeError);
    assert.throws(() => verify({ toleranceSeconds: -1 }), RangeError);
  });
});

describe('verifySignature: properties', () => {
  const bytes = fc.uint8Array({ maxLength: 512 });
  const secret = fc.string({ minLength: 1, maxLength: 64, unit: 'grapheme' });
  const secretOrEmpty = fc.string({ maxLength: 64, unit: 'binary' });
  // Near-valid headers: hex of about the right length, with or without the prefix.
  const hexish = fc
    .tuple(
      fc.constantFrom('', 'sha256=', 'SHA256='),
      fc.string({
        minLength: 60,
        maxLength: 70,
        unit: fc.constantFrom(...'0123456789abcdefABCDEFg '.split('')),
      }),
    )
    .map(([prefix, hex]) => prefix + hex);

  it('never throws on arbitrary headers, timestamps, bodies and secrets', () => {
    fc.assert(
      fc.property(
        bytes,
        fc.option(fc.oneof(fc.string({ unit: 'binary' }), hexish), {
          nil: undefined,
        }),
        fc.option(fc.oneof(fc.string(), fc.nat().map(String)), { nil: undefined }),
        fc.array(secretOrEmpty, { maxLength: 3 }),
        (rawBody, header, timestampHeader, secrets) => {
          const r = verifySignature({ rawBody, header, timestampHeader, secrets, now });
          return r.ok === false || (r.secretIndex >= 0 && r.secretIndex < secrets.length);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a signature computed for any body and secret verifies, with and without a timestamp', () => {
    fc.assert(
      fc.property(
        bytes,
        secret,
        fc.integer({ min: -300, max: 300 }),
        fc.boolean(),
        (rawBody, s, skew, withTs) => {
          const ts = withTs ? String(nowSeconds + skew) : undefined;
          const header = computeSignature(s, rawBody, ts);
          const r = verifySignature({ rawBody, header, timestampHeader: ts, secrets: [s], now });
          return r.ok && r.secretIndex === 0;
        },
      ),
    );
  });

  it('a one-bit change of the body or of the tag never verifies', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        secret,
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        fc.boolean(),
        (rawBody, s, pos, bit, inTag) => {
          const header = computeSignature(s, rawBody);
          if (inTag) {
            const tag = Buffer.from(header, 'hex');
            const i = pos % tag.length;
            tag[i] = (tag[i] ?? 0) ^ (1 << bit);
            const r = verifySignature({ rawBody, header: tag.toString('hex'), secrets: [s], now });
            return !r.ok && r.reason === 'mismatch';
          }
          const changed = new Uint8Array(rawBody);
          const i = pos % changed.length;
          changed[i] = (changed[i] ?? 0) ^ (1 << bit);
          const r = verifySignature({ rawBody: changed, header, secrets: [s], now });
          return !r.ok && r.reason === 'mismatch';
        },
      ),
    );
  });
});
