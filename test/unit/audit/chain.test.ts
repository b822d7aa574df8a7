import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  type ChainedFields,
  canonicalHeader,
  findFirstBreak,
  GENESIS,
  leafHash,
  linkHash,
} from '../../../src/domain/audit/chain.ts';

const row = (over: Partial<ChainedFields> = {}): ChainedFields => ({
  client_id: 'acme',
  chain_seq: 1,
  evaluation_id: '7d0c2a57-3c1e-4d7e-9a55-6f1f8f0d2b11',
  evaluated_at: '2026-11-22T06:00:00.000Z',
  trigger_type: 'transaction',
  trigger_entity_type: 'transaction',
  trigger_entity_id: 'tx-1',
  customer_id: 'cust-1',
  rule_set_version: '2026.11-1',
  high_risk_list_date: '2026-06-19',
  evaluator_id: 'key:k1',
  rules_evaluated: 8,
  rules_triggered: 1,
  transaction_blocked: true,
  alert_generated: false,
  case_created: true,
  highest_severity: 'high',
  rule_ids: ['MICA-CDD-001', 'MICA-CDD-002'],
  request: '{"client_id":"acme","data":{"amount_eur":1500.5,"note":"Grüße \\"quoted\\""}}',
  response: '{"evaluation_id":"7d0c2a57-3c1e-4d7e-9a55-6f1f8f0d2b11","results":[]}',
  ...over,
});

const u32 = (s: string) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(Buffer.from(s, 'utf8').length);
  return b;
};

/** The leaf computed independently, part by part. */
const expectedLeaf = (r: ChainedFields) =>
  createHash('sha256')
    .update(
      Buffer.concat([
        Buffer.from([0]),
        Buffer.from(canonicalHeader(r), 'utf8'),
        u32(r.request),
        Buffer.from(r.request, 'utf8'),
        u32(r.response),
        Buffer.from(r.response, 'utf8'),
      ]),
    )
    .digest();

test('the leaf is SHA-256 over 0x00, the header and the two length-prefixed texts (format pinned)', () => {
  const r = row();
  assert.deepEqual(leafHash(r), expectedLeaf(r));
  // Pinned: the leaf and link of this row as stored by every release so far.
  assert.equal(
    leafHash(r).toString('hex'),
    '9f70dfaae193a82d3fd90456d2d9062dea3d288f48ea0bb908ad705c8211bfda',
  );
  assert.equal(
    linkHash(GENESIS, leafHash(r)).toString('hex'),
    '6959aed6d0e5e3f637ac48e700812c50df12037883a1868edf14994a7a5485a1',
  );
  assert.ok(canonicalHeader(r).startsWith('["mica-audit-v2","acme",1,'));
  // Multi-byte characters are counted in bytes, not UTF-16 units.
  assert.equal(u32(r.request).readUInt32BE(), Buffer.byteLength(r.request));
});

test('property: the leaf and link match an independent computation for any text, in any script', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      (request, response, customer, previous) => {
        const r = row({ request, response, customer_id: customer });
        assert.deepEqual(leafHash(r), expectedLeaf(r));
        const link = createHash('sha256')
          .update(Buffer.from([1]))
          .update(previous)
          .update(leafHash(r))
          .digest();
        assert.deepEqual(linkHash(previous, leafHash(r)), link);
      },
    ),
  );
});

test('moving bytes between request and response changes the leaf', () => {
  const a = leafHash(row({ request: '{"a":1}', response: '{"b":2}' }));
  const b = leafHash(row({ request: '{"a":1}{', response: '"b":2}' }));
  assert.notDeepEqual(a, b);
});

test('changing any field changes the leaf', () => {
  const base = row();
  const h = leafHash(base).toString('hex');
  const changes: Partial<ChainedFields>[] = [
    { client_id: 'acme2' },
    { chain_seq: 2 },
    { evaluation_id: '7d0c2a57-3c1e-4d7e-9a55-6f1f8f0d2b12' },
    { evaluated_at: '2026-11-22T06:00:00.001Z' },
    { trigger_type: 'manual' },
    { trigger_entity_type: null },
    { trigger_entity_id: 'tx-2' },
    { customer_id: null },
    { rule_set_version: '2026.11-2' },
    { high_risk_list_date: null },
    { evaluator_id: 'key:k2' },
    { rules_evaluated: 9 },
    { rules_triggered: 0 },
    { transaction_blocked: false },
    { alert_generated: true },
    { case_created: false },
    { highest_severity: null },
    { rule_ids: ['MICA-CDD-001'] },
    { request: base.request.replace('1500.5', '1500.6') },
    { response: base.response.replace('[]', '[ ]') },
  ];
  for (const c of changes) assert.notEqual(leafHash({ ...base, ...c }).toString('hex'), h, JSON.stringify(c));
});

test('property: distinct (request, response) pairs give distinct leaves', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (q1, r1, q2, r2) => {
      fc.pre(q1 !== q2 || r1 !== r2);
      assert.notDeepEqual(
        leafHash(row({ request: q1, response: r1 })),
        leafHash(row({ request: q2, response: r2 })),
      );
    }),
  );
});

function chainOf(n: number) {
  let prev: Buffer = GENESIS;
  return Array.from({ length: n }, (_, i) => {
    const r = row({ chain_seq: i + 1, trigger_entity_id: `tx-${i}` });
    const row_hash = linkHash(prev, leafHash(r));
    const out = { ...r, prev_hash: prev, row_hash };
    prev = row_hash;
    return out;
  });
}

test('findFirstBreak: an intact chain, a changed row, a missing row, a forged link', () => {
  const rows = chainOf(5);
  const anchor = { seq: 0, hash: GENESIS };
  const ok = findFirstBreak(rows, anchor);
  assert.equal(ok.break, null);
  assert.deepEqual(ok.last, { seq: 5, hash: rows[4]!.row_hash });

  const changed = rows.map((r, i) => (i === 2 ? { ...r, request: r.request.replace('1500.5', '15.5') } : r));
  assert.deepEqual(findFirstBreak(changed, anchor).break, {
    chain_seq: 3,
    evaluation_id: rows[2]!.evaluation_id,
    reason: 'content_changed',
  });

  const missing = rows.filter((_, i) => i !== 1);
  assert.equal(findFirstBreak(missing, anchor).break?.reason, 'row_missing');
  assert.equal(findFirstBreak(missing, anchor).break?.chain_seq, 2);

  const forged = rows.map((r, i) => (i === 3 ? { ...r, prev_hash: Buffer.alloc(32, 7) } : r));
  assert.equal(findFirstBreak(forged, anchor).break?.reason, 'link_broken');
});
