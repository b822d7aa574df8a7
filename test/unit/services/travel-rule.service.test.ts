import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createMemoryCache } from '../../../src/cache/memory.cache.ts';
import { canonicalJson } from '../../../src/domain/canonical-json.ts';
import { resolveRuleSettings } from '../../../src/domain/rules/settings.ts';
import type { RuleResult } from '../../../src/domain/rules/types.ts';
import { caspDirectoryFrom } from '../../../src/domain/travel-rule/index.ts';
import { AppError } from '../../../src/errors.ts';
import {
  travelCacheKey,
  walletAddressKeyPart,
  walletAddressPrefix,
  walletCacheKey,
} from '../../../src/services/cache-keys.ts';
import { createCacheStatsService } from '../../../src/services/cache-stats.service.ts';
import type { EvaluationRequest } from '../../../src/services/evaluation.service.ts';
import type { Principal } from '../../../src/services/keys.service.ts';
import { createTravelRuleService, travelRuleActions } from '../../../src/services/travel-rule.service.ts';

const BTC = '14HmBSwec8XrcWge9Zi1ZngNia64u3Wd2v';
const ETH = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const principal = { clientId: 'acme', keyId: 'key_1' } as Principal;

const rule = (rule_id: string, result: RuleResult['result'], triggered = true): RuleResult => ({
  rule_id,
  rule_name: rule_id,
  triggered,
  result: triggered ? result : 'pass',
  conditions_met: {},
  actions_to_execute: [],
  severity: 'high',
});

describe('cache keys', () => {
  it('lower-case EVM addresses only', () => {
    assert.equal(walletCacheKey('acme', ETH, 'polygon'), `wallet:acme:${ETH.toLowerCase()}:polygon`);
    assert.equal(walletCacheKey('acme', BTC, 'bitcoin'), `wallet:acme:${BTC}:bitcoin`);
    assert.equal(walletAddressKeyPart('0xABC'), '0xABC');
    // Bech32 is one address in either case (BIP-173: upper case in QR codes); mixed case is not bech32.
    const SEGWIT = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
    assert.equal(walletCacheKey('acme', SEGWIT.toUpperCase(), 'bitcoin'), `wallet:acme:${SEGWIT}:bitcoin`);
    assert.equal(walletAddressPrefix('acme', SEGWIT.toUpperCase()), `wallet:acme:${SEGWIT}:`);
    assert.equal(walletAddressKeyPart('Bc1QW508'), 'Bc1QW508');
    assert.equal(
      walletAddressPrefix('acme', ETH.toUpperCase().replace('0X', '0x')),
      `wallet:acme:${ETH.toLowerCase()}:`,
    );
    assert.equal(travelCacheKey('acme', 'tr:1'), 'travel:acme:tr:1');
  });
});

describe('travel-rule actions (CONTRACT §7)', () => {
  it('BLOCK, REVIEW, REQUEST_INFO in that order; ALLOW alone', () => {
    assert.deepEqual(travelRuleActions([rule('MICA-TR-001', 'block', false)], false), ['ALLOW']);
    assert.deepEqual(travelRuleActions([rule('MICA-CDD-003', 'block')], false), ['BLOCK']);
    assert.deepEqual(travelRuleActions([rule('MICA-RPT-004', 'alert')], false), ['REVIEW']);
    assert.deepEqual(travelRuleActions([], true), ['REVIEW']);
    assert.deepEqual(
      travelRuleActions(
        [rule('X', 'fail'), rule('MICA-RPT-004', 'alert'), rule('MICA-TR-001', 'block')],
        false,
      ),
      ['BLOCK', 'REVIEW', 'REQUEST_INFO'],
    );
  });

  it('canonical JSON ignores key order and undefined members', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] }),
      canonicalJson({ a: [{ d: 2 }], b: 1 }),
    );
    assert.notEqual(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
  });
});

function setup(opts: { failingCache?: boolean } = {}) {
  const context = { settings: resolveRuleSettings(undefined) };
  const evaluated: EvaluationRequest[] = [];
  const memory = createMemoryCache();
  const cache = opts.failingCache
    ? {
        get: async () => {
          throw new Error('redis down');
        },
        set: async () => {
          throw new Error('redis down');
        },
      }
    : memory;
  const stats = createCacheStatsService({ cache: memory });
  const cacheErrors: unknown[] = [];
  const service = createTravelRuleService({
    evaluation: {
      evaluate: async (_p, req) => {
        evaluated.push(req);
        const results = [rule('MICA-TR-001', 'block', req.data.data_completeness !== 'complete')];
        return {
          response: {
            results,
            rules_triggered: results.filter((r) => r.triggered).length,
            evaluation_id: randomUUID(),
          },
        } as never;
      },
    },
    directory: async () => Object.assign(caspDirectoryFrom([]), { version: 1 }),
    clientContext: async () => context,
    cache,
    stats,
    onCacheError: (e) => cacheErrors.push(e),
    now: () => new Date('2026-01-01T00:00:00Z'),
  });
  return { service, evaluated, stats, cacheErrors, context, memory };
}

const body = (id: string, extra: Record<string, unknown> = {}) => ({
  transfer_id: id,
  direction: 'inbound',
  amount_eur: 10,
  originator: { name: 'A' },
  ...extra,
});

describe('travel-rule service', () => {
  it('passes the transfer to the engine as travel_rule data, external unless the beneficiary is a customer', async () => {
    const { service, evaluated } = setup();
    await service.validate(principal, body('t1'));
    await service.validate(principal, body('t2', { beneficiary: { customer_id: 'c-1' }, amount_crypto: 2 }));
    assert.equal(evaluated[0]?.trigger_type, 'travel_rule');
    assert.equal(evaluated[0]?.trigger_entity_type, 'transfer');
    assert.equal(evaluated[0]?.trigger_entity_id, 't1');
    assert.equal(evaluated[0]?.client_id, 'acme');
    assert.equal(evaluated[0]?.data.transfer_type, 'external');
    assert.equal(evaluated[0]?.data.amount_crypto, 0);
    assert.equal(evaluated[0]?.data.data_completeness, 'partial');
    assert.equal(evaluated[1]?.data.transfer_type, 'internal');
    assert.equal(evaluated[1]?.data.amount_crypto, 2);
  });

  it('serves a repeated body from the cache and re-validates a changed one', async () => {
    const { service, evaluated, stats } = setup();
    const a = await service.validate(principal, body('t1'));
    // The same bytes, and the evaluation that produced them: the hit wrote none of its own.
    assert.deepEqual(await service.validate(principal, body('t1')), a);
    assert.equal(evaluated.length, 1);
    await service.validate(principal, body('t1', { amount_eur: 11 }));
    assert.equal(evaluated.length, 2);
    const s = await stats.stats('acme');
    assert.equal(s.travel_rule.total_requests, 3);
    assert.equal(s.travel_rule.cache_size, 1);
  });

  it('an entry of the previous format (no evaluation id) is a miss, validated again and replaced', async () => {
    const { service, evaluated, memory } = setup();
    const key = travelCacheKey('acme', 't1');
    const first = await service.validate(principal, body('t1'));
    const entry = (await memory.get(key))!;
    const fingerprint = entry.slice(0, entry.indexOf('\t'));
    // An instance of the previous version matches `<fingerprint>\n`: it reads this entry as a miss.
    assert.ok(!entry.startsWith(`${fingerprint}\n`));
    await memory.set(key, `${fingerprint}\n${first.json}`, 300);
    const again = await service.validate(principal, body('t1'));
    assert.equal(evaluated.length, 2, 'not served without the id of its evaluation');
    assert.equal(again.json, first.json);
    assert.notEqual(again.evaluationId, first.evaluationId);
    assert.deepEqual(await service.validate(principal, body('t1')), again, 'the new entry names it');
    assert.equal(evaluated.length, 2);
  });

  it('changed client settings make a cached answer a miss (it was decided under the old ones)', async () => {
    const { service, evaluated, context } = setup();
    await service.validate(principal, body('t1'));
    await service.validate(principal, body('t1'));
    assert.equal(evaluated.length, 1);
    context.settings = resolveRuleSettings({ thresholds: { self_hosted_amount_eur: 2000 } });
    await service.validate(principal, body('t1'));
    assert.equal(evaluated.length, 2);
    await service.validate(principal, body('t1'));
    assert.equal(evaluated.length, 2, 'and the new answer is cached');
  });

  it('rejects an invalid body with every error before touching the cache', async () => {
    const { service, stats } = setup();
    await assert.rejects(
      service.validate(principal, { direction: 'up', amount_eur: -1 }),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'INVALID_REQUEST' &&
        JSON.stringify(e.details?.errors) ===
          JSON.stringify([
            'transfer_id: Required',
            'direction: Must be one of: outbound, inbound',
            'amount_eur: Must be >= 0',
          ]),
    );
    assert.equal((await stats.stats('acme')).travel_rule.total_requests, 0);
  });

  it('an unreachable cache degrades to validating every request', async () => {
    const { service, evaluated, cacheErrors } = setup({ failingCache: true });
    await service.validate(principal, body('t1'));
    await service.validate(principal, body('t1'));
    assert.equal(evaluated.length, 2);
    assert.equal(cacheErrors.length, 4);
  });
});
