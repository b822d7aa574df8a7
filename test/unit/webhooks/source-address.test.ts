import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sourceKey } from '../../../src/domain/webhooks/source-address.ts';

describe('webhook source address keys', () => {
  it('an IPv4 address is its own key, also written as an IPv4-mapped IPv6 address', () => {
    assert.equal(sourceKey('192.0.2.7'), '192.0.2.7');
    assert.equal(sourceKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(sourceKey('::FFFF:192.0.2.7'), '192.0.2.7');
  });

  it('an IPv6 address counts for its /64, however it is written', () => {
    for (const ip of [
      '2001:db8:1:2::1',
      '2001:db8:1:2::10',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:DB8:1:2:0:0:0:9',
    ])
      assert.equal(sourceKey(ip), '2001:db8:1:2::/64', ip);
    assert.equal(sourceKey('2001:db8:1:3::1'), '2001:db8:1:3::/64');
    assert.equal(sourceKey('::1'), '0:0:0:0::/64');
    assert.equal(sourceKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(sourceKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  });

  it('what does not read as an address is kept as it is (never throws)', () => {
    assert.equal(sourceKey('1::2::3'), '1::2::3');
    // More groups than an address has, around a '::' (a forged X-Forwarded-For): kept, not a crash.
    assert.equal(sourceKey('::1:2:3:4:5:6:7:8:9'), '::1:2:3:4:5:6:7:8:9');
    assert.equal(sourceKey('1:2:3:4:5:6:7::1.2.3.4'), '1:2:3:4:5:6:7::1.2.3.4');
    assert.equal(sourceKey('::ffff:999.1.1.1'), '::ffff:999.1.1.1');
    for (let extra = 0; extra < 12; extra++) {
      const groups = Array.from({ length: extra }, (_, i) => String(i + 1)).join(':');
      for (const ip of [`::${groups}`, `${groups}::`, `${groups}::1`, `1::${groups}`])
        assert.equal(typeof sourceKey(ip), 'string', ip);
    }
    fc.assert(fc.property(fc.string(), (s) => typeof sourceKey(s) === 'string'));
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const key = sourceKey(ip);
        return key.endsWith('::/64') || /^\d{1,3}(\.\d{1,3}){3}$/.test(key);
      }),
    );
  });
});
