import { createHash } from 'node:crypto';

/**
 * How fast this host runs a fixed piece of single-threaded work, so that results from different
 * machines (or from one virtual machine whose host is busy) can be put side by side: the work is
 * what a request of this service mostly does (JSON, hashing, small objects), always the same.
 * Reported in milliseconds per round: lower is faster. Rounds are timed separately; their spread
 * shows how steady the host was while it was measured.
 */

const DOC = {
  client_id: 'bench',
  trigger_type: 'transaction',
  data: { amount_eur: 12_345.67, customer_id: 'c-1', countries: ['DE', 'FR', 'NL'], verified: true },
  results: Array.from({ length: 13 }, (_, i) => ({
    rule_id: `MICA-R-${i}`,
    triggered: i % 3 === 0,
    score: i * 7,
  })),
};

function round(): number {
  const started = performance.now();
  let check = 0;
  for (let i = 0; i < 4000; i++) {
    const text = JSON.stringify({ ...DOC, i });
    const back = JSON.parse(text) as { results: Array<{ score: number }> };
    check += back.results.reduce((s, r) => s + r.score, 0);
    check += createHash('sha256').update(text).digest()[0]!;
  }
  if (check < 0) throw new Error('unreachable');
  return performance.now() - started;
}

export interface HostSpeed {
  medianMs: number;
  minMs: number;
  maxMs: number;
}

/** Times `rounds` rounds of the fixed work (after one untimed warm-up round). */
export function measureHostSpeed(rounds = 7): HostSpeed {
  round();
  const times = Array.from({ length: rounds }, round).sort((a, b) => a - b);
  return { medianMs: times[Math.floor(rounds / 2)]!, minMs: times[0]!, maxMs: times[rounds - 1]! };
}

/** Measured when a bench process loads this module, i.e. before it starts anything. */
export const HOST_SPEED_AT_START = measureHostSpeed();

const ms = (n: number) => n.toFixed(1);
const text = (h: HostSpeed) => `${ms(h.medianMs)} ms (${ms(h.minMs)}–${ms(h.maxMs)})`;

/** The machine-table row: the host's speed before the bench started and now. */
export function hostSpeedRow(): string {
  const now = measureHostSpeed();
  return (
    `| Host speed | fixed work (bench/host-speed.ts), median round of 7 (fastest–slowest): ` +
    `${text(HOST_SPEED_AT_START)} before the bench, ${text(now)} after it; lower is faster |`
  );
}
