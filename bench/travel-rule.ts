import { CASP_CSV, completeBody, UNLISTED_LEI } from '../test/helpers/travel-rule.ts';
import { freshBitcoin, freshEvm } from './addresses.ts';
import type { CpuUse } from './cpu.ts';
import { loadAverage } from './cpu.ts';
import {
  auditedIds,
  cpuCell,
  FRESH_WARMUP_S,
  f,
  int,
  logger,
  measuredPaced,
  measureOn,
  measureTargets,
  num,
  pacedNote,
  pcts,
  runMain,
  sectionOpening,
  startRealServer,
  type TargetName,
  verdict,
  writeBenchSection,
} from './harness.ts';
import type { PacedResult } from './paced.ts';

/**
 * Travel-rule validation (issue #4): uncached validations at an evenly paced rate, each audited
 * (trigger_type travel_rule) before it is answered. `npm run bench:travel-rule`.
 */

const log = logger('travel-rule');
const settings = {
  durationS: num('BENCH_DURATION', 10),
  rate: Math.round(num('BENCH_TRAVEL_RULE_RATE', 500)),
};
const PATH = '/api/mica/travel-rule-validation';
const GOAL_P99_MS = 5;
const RUN = Date.now().toString(36);
let seq = 0;

/**
 * A new transfer each request (so never a cache hit): mostly complete transfers to a listed
 * counterparty, with self-hosted beneficiaries, unlisted counterparties, missing fields and
 * EVM wallets mixed in, amounts around the EUR 1,000 threshold.
 */
function body(): { body: string; tag: string } {
  const id = `tr-${RUN}-${++seq}`;
  const r = Math.random();
  const amount = Math.round(Math.exp(Math.log(1000) + 1.2 * (Math.random() * 2 - 1)) * 100) / 100;
  const b = completeBody(id, { amount_eur: amount }) as unknown as {
    beneficiary: Record<string, unknown>;
    originator: Record<string, unknown>;
  };
  b.originator.wallet_address = freshBitcoin();
  b.beneficiary.wallet_address = freshBitcoin();
  if (r < 0.15) {
    // Self-hosted beneficiary, ownership proven or not.
    delete b.beneficiary.casp_name;
    delete b.beneficiary.casp_lei;
    Object.assign(b, { ownership_verified: Math.random() < 0.5 });
  } else if (r < 0.25) b.beneficiary.casp_lei = UNLISTED_LEI;
  else if (r < 0.35) delete b.originator.geographic_address;
  else if (r < 0.5) {
    b.originator.wallet_address = freshEvm();
    b.beneficiary.wallet_address = freshEvm();
    Object.assign(b, { blockchain: 'ethereum' });
  }
  return { body: JSON.stringify(b), tag: id };
}

interface TargetResult {
  target: TargetName;
  loadAvg: number;
  error?: string;
  run?: { paced: PacedResult; cpu: CpuUse };
  integrity?: { answered: number; found: number; ok: boolean };
  responseBytes?: number;
}

async function measure(target: TargetName): Promise<TargetResult> {
  const result: TargetResult = { target, loadAvg: loadAverage() };
  // A failed start ends the benchmark (it would fail on the other target too).
  const started = await startRealServer(target, { log });
  await measureOn(
    started,
    result,
    async (server) => {
      await server.command('casps.import', { csv: CASP_CSV, source: 'casp_directory.csv' });
      const headers = { ...server.headers, 'content-type': 'application/json' };
      const probe = body();
      const res = await fetch(`${server.origin}${PATH}`, { method: 'POST', headers, body: probe.body });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`probe answered ${res.status}: ${text.slice(0, 300)}`);
      result.responseBytes = Buffer.byteLength(text);
      log(`${target}: ${settings.rate} req/s for ${settings.durationS} s`);
      const { paced, cpu, warm } = await measuredPaced(
        server.child.pid,
        target === 'postgres',
        {
          origin: server.origin,
          path: PATH,
          headers,
          body: () => '',
          request: body,
          rate: settings.rate,
          durationS: settings.durationS,
          connections: 64,
          collectIds: true,
          idOf: (_t, tag) => tag,
        },
        FRESH_WARMUP_S,
      );
      result.run = { paced, cpu };
      await server.stop();
      result.integrity = await auditedIds(server, 'travel_rule', [probe.tag, ...warm.ids, ...paced.ids]);
    },
    { log, label: target },
  );
  return result;
}

function report(results: TargetResult[], loadStart: number, pg?: string): string[] {
  const out: string[] = [];
  const w = (...lines: string[]) => out.push(...(lines.length > 0 ? lines : ['']));
  const method = `paced open loop, ${int(settings.rate)} req/s evenly spaced, ${settings.durationS} s after ${FRESH_WARMUP_S} s of paced warm-up on the fresh server (bench/paced.ts, 64 pooled connections, exact percentiles, dispatch → last byte)`;
  w(...sectionOpening('Travel-rule validation (issue #4)', 'bench:travel-rule', loadStart, pg));
  w(
    '- **Server**: the real server process on a fresh embedded store and on a freshly reset PostgreSQL database `mica_bench_extra`, the test CASP directory imported (test/fixtures/travel-rule/casp_directory.csv); client `bench` with limits far above the load.',
  );
  w(
    `- **Load**: ${method}. Each request is a new transfer id, so every answer is uncached: body parsed and validated (addresses per chain, LEI check digits), completeness graded, counterparty looked up, MICA-TR-001/CDD-003/RPT-004 evaluated, the evaluation committed to the audit table (group commit) before the answer. Spec-form bodies (test/helpers/travel-rule.ts \`completeBody\`), fresh Bitcoin or EVM wallets, amounts log-uniform around EUR 1,000; 15 % self-hosted beneficiaries, 10 % unlisted counterparty LEI, 10 % missing originator address.`,
  );
  w('- **CPU ms/request**: user + system from /proc over the measured window ÷ answers.');
  w(
    '- **Integrity**: after a graceful stop, every transfer id answered 2xx must have its `travel_rule` evaluation in `evaluations`.',
  );
  w();
  w('### Targets');
  w();
  w('| Goal | Target | Measured | Verdict |');
  w('|---|---|---|---|');
  for (const r of results) {
    if (!r.run) {
      w(
        `| p99 ≤ 5 ms at ${int(settings.rate)}/s | ${r.target} | failed: ${(r.error ?? '').slice(0, 200)} | MISS |`,
      );
      continue;
    }
    const p = r.run.paced;
    w(
      `| p99 ≤ 5 ms at ${int(settings.rate)}/s uncached, audit committed | ${r.target} | p99 ${f(p.latency.p99, 2)} ms (from schedule ${f(p.fromSchedule.p99, 2)} ms) | ${verdict(p.latency.p99 <= GOAL_P99_MS && p.non2xx + p.errors === 0)} |`,
    );
    w(
      `| every answer audited | ${r.target} | ${r.integrity ? `${int(r.integrity.found)} of ${int(r.integrity.answered)}` : (r.error ?? 'n/a')} | ${verdict(r.integrity?.ok)} |`,
    );
  }
  w();
  w('### Latency and CPU');
  w();
  w(
    '| Target | p50 / p90 / p99 / p99.9 / max ms | from schedule p99 ms | answers | CPU ms per request | response |',
  );
  w('|---|---|---|---|---|---|');
  for (const r of results)
    if (r.run)
      w(
        `| ${r.target} (load ${f(r.loadAvg, 2)}) | ${pcts(r.run.paced.latency)} | ${f(r.run.paced.fromSchedule.p99, 2)} | ${pacedNote(r.run.paced)} | ${cpuCell(r.run.cpu, r.target === 'postgres')} | ${int(r.responseBytes)} B |`,
      );
  return out;
}

async function main(): Promise<number> {
  const loadStart = loadAverage();
  const { results, pg } = await measureTargets(log, measure);
  log(`wrote ${writeBenchSection('travel-rule', report(results, loadStart, pg))}`);
  const failed = results.some(
    (r) => r.error || !r.integrity?.ok || (r.run && r.run.paced.non2xx + r.run.paced.errors > 0),
  );
  return failed ? 1 : 0;
}

runMain('bench:travel-rule', main);
