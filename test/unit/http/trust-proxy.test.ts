import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { trustProxyOption } from '../../../src/app.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';

describe('TRUST_PROXY', () => {
  it('takes true, false, a number of hops, or addresses, ranges and proxy-addr names', () => {
    for (const v of [
      'true',
      'false',
      '1',
      '2',
      '10.0.0.1',
      '10.0.0.0/8, 192.0.2.1',
      '::1',
      '2001:db8::/32',
      'loopback,uniquelocal',
    ])
      assert.equal(loadConfig({ TRUST_PROXY: v }).TRUST_PROXY, v, v);
  });

  it('refuses anything else at start, naming the setting', () => {
    for (const v of ['TRUE', 'yes', '10.0.0.0/33', '10.0.0.1/8/1', 'proxy.internal', '1.2.3.4,', '::1/129'])
      assert.throws(
        () => loadConfig({ TRUST_PROXY: v }),
        (e: Error) => e instanceof ConfigError && /TRUST_PROXY/.test(e.message),
        v,
      );
  });

  it('reads as Fastify takes it', () => {
    assert.equal(trustProxyOption(undefined), false);
    assert.equal(trustProxyOption('false'), false);
    assert.equal(trustProxyOption('true'), true);
    assert.deepEqual(trustProxyOption('10.0.0.0/8, 192.0.2.1'), ['10.0.0.0/8', '192.0.2.1']);
    const hops = trustProxyOption('2') as (address: string, hop: number) => boolean;
    assert.deepEqual(
      [0, 1, 2, 3].map((hop) => hops('192.0.2.1', hop)),
      [true, true, false, false],
    );
  });
});
