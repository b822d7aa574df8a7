import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  allowedTransitions,
  type ItemKind,
  initialStatus,
  isFinalStatus,
  isStatus,
  resolutionsFor,
  statusesOf,
  transition,
} from '../../../src/domain/cases/state-machines.ts';

const at = new Date('2026-03-02T10:00:00Z');
const actor = 'key_123';

// The edges of CONTRACT §5, written out independently of the module's table.
const EXPECTED: Record<ItemKind, Record<string, string[]>> = {
  alert: {
    open: ['acknowledged', 'escalated', 'closed'],
    acknowledged: ['escalated', 'closed'],
    escalated: [],
    closed: [],
  },
  case: {
    open: ['investigating', 'closed'],
    investigating: ['pending_filing', 'closed'],
    pending_filing: ['closed'],
    closed: [],
  },
};
const RESOLUTIONS: Record<ItemKind, string[]> = {
  alert: ['true_positive', 'false_positive'],
  case: ['str_filed', 'report_filed', 'no_action'],
};
const KINDS: ItemKind[] = ['alert', 'case'];
const resolutionFor = (kind: ItemKind, to: string) => (to === 'closed' ? RESOLUTIONS[kind][0] : undefined);

describe('state machine tables', () => {
  for (const kind of KINDS) {
    it(`${kind}: statuses, initial status and allowed transitions match CONTRACT §5`, () => {
      assert.deepEqual(statusesOf(kind), Object.keys(EXPECTED[kind]));
      assert.equal(initialStatus(kind), 'open');
      for (const [status, edges] of Object.entries(EXPECTED[kind])) {
        assert.deepEqual(allowedTransitions(kind, status), edges, `${kind} ${status}`);
        assert.equal(isFinalStatus(kind, status), edges.length === 0);
      }
      assert.deepEqual(resolutionsFor(kind, 'closed'), RESOLUTIONS[kind]);
      assert.deepEqual(resolutionsFor(kind, 'open'), []);
    });
  }

  it('final statuses: alert closed and escalated, case closed', () => {
    assert.equal(isFinalStatus('alert', 'escalated'), true);
    assert.equal(isFinalStatus('alert', 'closed'), true);
    assert.equal(isFinalStatus('case', 'closed'), true);
    assert.equal(isFinalStatus('case', 'escalated'), false); // not a case status
    assert.equal(isFinalStatus('case', 'nonsense'), false);
  });

  it('unknown and prototype-named statuses have no edges', () => {
    for (const s of ['nonsense', '', 'constructor', '__proto__', 'toString', 'OPEN']) {
      assert.deepEqual(allowedTransitions('alert', s), []);
      assert.equal(isStatus('case', s), false);
    }
  });

  it('allowedTransitions returns a copy the caller may mutate', () => {
    allowedTransitions('alert', 'open').push('bogus' as never);
    assert.deepEqual(allowedTransitions('alert', 'open'), EXPECTED.alert.open);
  });
});

describe('transition: every edge', () => {
  for (const kind of KINDS) {
    for (const [from, edges] of Object.entries(EXPECTED[kind])) {
      const targets = [...Object.keys(EXPECTED[kind]), 'archived', ''];
      for (const to of targets) {
        const legal = edges.includes(to);
        it(`${kind} ${from} → ${to || '(empty)'} is ${legal ? 'accepted' : 'rejected'}`, () => {
          const r = transition(kind, from, { to, resolution: resolutionFor(kind, to), actor, at, note: 'n' });
          if (legal) {
            assert.equal(r.ok, true);
            assert.ok(r.ok);
            assert.equal(r.status, to);
            assert.equal(r.resolution, resolutionFor(kind, to) ?? null);
            assert.deepEqual(r.historyEntry, {
              at: '2026-03-02T10:00:00.000Z',
              actor,
              actor_name: null,
              from,
              to,
              note: 'n',
            });
          } else {
            assert.deepEqual(r, { ok: false, error: 'INVALID_TRANSITION', allowed: edges });
          }
        });
      }
    }
  }
});

describe('transition: resolutions', () => {
  it('closing needs a resolution (missing, null or empty)', () => {
    for (const resolution of [undefined, null, '']) {
      assert.deepEqual(transition('alert', 'open', { to: 'closed', resolution, actor, at }), {
        ok: false,
        error: 'RESOLUTION_REQUIRED',
        allowed: RESOLUTIONS.alert,
      });
      assert.deepEqual(transition('case', 'pending_filing', { to: 'closed', resolution, actor, at }), {
        ok: false,
        error: 'RESOLUTION_REQUIRED',
        allowed: RESOLUTIONS.case,
      });
    }
  });

  it('a resolution of the other kind, or unknown, is INVALID_RESOLUTION', () => {
    assert.deepEqual(transition('alert', 'open', { to: 'closed', resolution: 'str_filed', actor, at }), {
      ok: false,
      error: 'INVALID_RESOLUTION',
      allowed: RESOLUTIONS.alert,
    });
    assert.deepEqual(transition('case', 'open', { to: 'closed', resolution: 'TRUE_POSITIVE', actor, at }), {
      ok: false,
      error: 'INVALID_RESOLUTION',
      allowed: RESOLUTIONS.case,
    });
  });

  it('every listed resolution closes', () => {
    for (const kind of KINDS) {
      for (const resolution of RESOLUTIONS[kind]) {
        const r = transition(kind, 'open', { to: 'closed', resolution, actor, at });
        assert.ok(r.ok);
        assert.equal(r.resolution, resolution);
      }
    }
  });

  it('a resolution on a move that takes none is rejected', () => {
    assert.deepEqual(
      transition('alert', 'open', { to: 'acknowledged', resolution: 'true_positive', actor, at }),
      { ok: false, error: 'INVALID_RESOLUTION', allowed: [] },
    );
  });

  it('an illegal edge is INVALID_TRANSITION even without a resolution', () => {
    assert.deepEqual(transition('case', 'closed', { to: 'closed', actor, at }), {
      ok: false,
      error: 'INVALID_TRANSITION',
      allowed: [],
    });
  });

  it('a missing note is recorded as null; an invalid time throws', () => {
    const r = transition('case', 'open', { to: 'investigating', actor, at });
    assert.ok(r.ok);
    assert.equal(r.historyEntry.note, null);
    assert.equal(r.resolution, null);
    assert.throws(() => transition('case', 'open', { to: 'investigating', actor, at: new Date(Number.NaN) }));
  });
});

describe('transition: properties', () => {
  const kind = fc.constantFrom<ItemKind>('alert', 'case');
  it('from any status, listed targets are accepted and any other string is rejected with the allowed list', () => {
    fc.assert(
      fc.property(
        kind,
        fc.constantFrom(
          'open',
          'acknowledged',
          'escalated',
          'closed',
          'investigating',
          'pending_filing',
          'x',
        ),
        fc.oneof(fc.string(), fc.constantFrom(...Object.keys(EXPECTED.alert), ...Object.keys(EXPECTED.case))),
        (k, from, to) => {
          const allowed = EXPECTED[k][from] ?? [];
          const r = transition(k, from, { to, resolution: resolutionFor(k, to), actor, at });
          if (allowed.includes(to)) return r.ok && r.status === to && r.historyEntry.from === from;
          return (
            !r.ok && r.error === 'INVALID_TRANSITION' && JSON.stringify(r.allowed) === JSON.stringify(allowed)
          );
        },
      ),
    );
  });

  it('any sequence of moves ends in a status reachable by the table, and final statuses stay final', () => {
    fc.assert(
      fc.property(kind, fc.array(fc.nat(9), { maxLength: 12 }), (k, picks) => {
        const all = Object.keys(EXPECTED[k]);
        let status = initialStatus(k) as string;
        for (const p of picks) {
          const to = all[p % all.length] ?? 'open';
          const r = transition(k, status, { to, resolution: resolutionFor(k, to), actor, at });
          if (r.ok) {
            if (isFinalStatus(k, status)) return false;
            status = r.status;
          }
        }
        return isStatus(k, status);
      }),
    );
  });
});
