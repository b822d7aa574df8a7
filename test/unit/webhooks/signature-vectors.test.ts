// Public known-answer vectors (test/fixtures/webhooks/SOURCE.md): GitHub X-Hub-Signature-256,
// RFC 4231 test cases 1-3 and Wycheproof HMAC-SHA256.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  hmacMatches,
  parseSignatureHeader,
  verifySignature,
} from '../../../src/domain/webhooks/signature.ts';
import { fixture, fromHex, toHex, utf8, utf8String } from './helpers.ts';

interface Vectors {
  github_x_hub_signature_256: {
    secret: string;
    payload: string;
    expected_hex: string;
    expected_header: string;
  };
  rfc4231_hmac_sha256: {
    cases: {
      tc: number;
      key_hex?: string;
      key_ascii?: string;
      data_ascii?: string;
      data_hex?: string;
      hmac_sha256: string;
    }[];
  };
}
interface Wycheproof {
  numberOfTests: number;
  testGroups: {
    keySize: number;
    tagSize: number;
    tests: {
      tcId: number;
      key: string;
      msg: string;
      tag: string;
      result: 'valid' | 'invalid';
      flags: string[];
    }[];
  }[];
}

const vectors = fixture<Vectors>('webhook_signature_vectors.json');
const wycheproof = fixture<Wycheproof>('wycheproof/hmac_sha256_test.json');
const now = new Date('2026-03-02T10:00:00Z');

describe('GitHub X-Hub-Signature-256 known answer', () => {
  const gh = vectors.github_x_hub_signature_256;
  const rawBody = utf8(gh.payload);

  it('verifies the documented header, with and without the sha256= prefix', () => {
    for (const header of [gh.expected_header, gh.expected_hex]) {
      assert.deepEqual(verifySignature({ rawBody, header, secrets: [gh.secret], now }), {
        ok: true,
        secretIndex: 0,
        secretIndexes: [0],
      });
    }
  });

  it('rejects the same header for a body with one more byte or a different secret', () => {
    const header = gh.expected_header;
    assert.equal(
      verifySignature({ rawBody: utf8(`${gh.payload}\n`), header, secrets: [gh.secret], now }).ok,
      false,
    );
    assert.deepEqual(verifySignature({ rawBody, header, secrets: ["It's a secret to everybody"], now }), {
      ok: false,
      reason: 'mismatch',
    });
  });
});

describe('RFC 4231 test cases 1-3', () => {
  for (const c of vectors.rfc4231_hmac_sha256.cases) {
    const key = c.key_hex !== undefined ? fromHex(c.key_hex) : utf8(c.key_ascii ?? '');
    const msg = c.data_hex !== undefined ? fromHex(c.data_hex) : utf8(c.data_ascii ?? '');

    it(`test case ${c.tc}: the tag matches at byte level`, () => {
      const tag = parseSignatureHeader(c.hmac_sha256);
      assert.ok(tag !== null);
      assert.equal(hmacMatches(key, msg, tag), true);
      const flipped = new Uint8Array(tag);
      flipped[31] = (flipped[31] ?? 0) ^ 1;
      assert.equal(hmacMatches(key, msg, flipped), false);
    });

    // A key is usable as a registration secret only if it is the UTF-8 encoding of a string.
    const secret = utf8String(key);
    if (secret !== null && toHex(utf8(secret)) === toHex(key)) {
      it(`test case ${c.tc}: verifies through verifySignature with the key as a secret`, () => {
        const r = verifySignature({
          rawBody: msg,
          header: `sha256=${c.hmac_sha256}`,
          secrets: [secret],
          now,
        });
        assert.deepEqual(r, { ok: true, secretIndex: 0, secretIndexes: [0] });
      });
    }
  }

  it('cases 1 and 2 have UTF-8 keys and so run through verifySignature', () => {
    const utf8Keys = vectors.rfc4231_hmac_sha256.cases.filter(
      (c) => c.key_ascii !== undefined || utf8String(fromHex(c.key_hex ?? '')) !== null,
    );
    assert.deepEqual(
      utf8Keys.map((c) => c.tc),
      [1, 2],
    );
  });
});

describe('Wycheproof HMAC-SHA256', () => {
  const full = wycheproof.testGroups.filter((g) => g.tagSize === 256).flatMap((g) => g.tests);
  const truncated = wycheproof.testGroups.filter((g) => g.tagSize !== 256).flatMap((g) => g.tests);

  it('holds all 174 vectors, 87 of them with full-length (256-bit) tags', () => {
    assert.equal(full.length + truncated.length, wycheproof.numberOfTests);
    assert.equal(full.length, 87);
  });

  it('full-length tags verify exactly when the vector says valid', () => {
    let valid = 0;
    for (const t of full) {
      const tag = parseSignatureHeader(t.tag);
      assert.ok(tag !== null, `tcId ${t.tcId}`);
      const ok = hmacMatches(fromHex(t.key), fromHex(t.msg), tag);
      assert.equal(ok, t.result === 'valid', `tcId ${t.tcId} (${t.flags.join(',')})`);
      if (ok) valid += 1;
    }
    assert.equal(valid, 33);
  });

  it('full-length vectors whose key is UTF-8 text agree through verifySignature', () => {
    let checked = 0;
    for (const t of full) {
      const secret = utf8String(fromHex(t.key));
      if (secret === null) continue;
      checked += 1;
      const r = verifySignature({ rawBody: fromHex(t.msg), header: t.tag, secrets: [secret], now });
      assert.equal(r.ok, t.result === 'valid', `tcId ${t.tcId}`);
    }
    assert.equal(checked, 54);
  });

  it('truncated 128-bit tags are refused, even the ones Wycheproof calls valid', () => {
    for (const t of truncated) {
      assert.equal(parseSignatureHeader(t.tag), null, `tcId ${t.tcId}`);
      assert.equal(hmacMatches(fromHex(t.key), fromHex(t.msg), fromHex(t.tag)), false, `tcId ${t.tcId}`);
      const r = verifySignature({ rawBody: fromHex(t.msg), header: t.tag, secrets: ['any'], now });
      assert.deepEqual(r, { ok: false, reason: 'malformed' });
    }
  });
});
