import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { ClosedLoopResult } from './closed-loop.ts';
import type { CpuUse } from './cpu.ts';
import { hostSpeedRow } from './host-speed.ts';
import type { PacedResult, Percentiles } from './paced.ts';
import { CUSTOMER_POOL, transactionBody } from './payload.ts';
import type { WaitProfile } from './postgres.ts';
import { ROOT } from './processes.ts';
import { writeSection } from './results-file.ts';

export interface Settings {
  durationS: number;
  warmupS: number;
  connections: number;
  rate: number;
  pacedWarmupS: number;
  pacedConnections: number;
  targets: Array<'embedded' | 'postgres'>;
  cpuProfile: boolean;
}

/** Audit batches committed in a window: how many, how many evaluations, how many held eight or fewer. */
export interface BatchStats {
  batches: number;
  evaluations: number;
  upTo8: number;
}

/** The audit batch-size histogram's totals from a /metrics text (undefined when it has none). */
export function batchTotals(metrics: string): BatchStats | undefined {
  const value = (re: RegExp) => Number(re.exec(metrics)?.[1] ?? Number.NaN);
  const totals = {
    batches: value(/^mica_audit_batch_size_count (\d+)/m),
    evaluations: value(/^mica_audit_batch_size_sum (\d+)/m),
    upTo8: value(/^mica_audit_batch_size_bucket\{le="8"\} (\d+)/m),
  };
  return Object.values(totals).every(Number.isFinite) ? totals : undefined;
}

/** What was committed between two readings of batchTotals. */
export function batchesBetween(a: BatchStats | undefined, b: BatchStats | undefined): BatchStats | undefined {
  if (!a || !b) return undefined;
  return {
    batches: b.batches - a.batches,
    evaluations: b.evaluations - a.evaluations,
    upTo8: b.upTo8 - a.upTo8,
  };
}

/** "1,324 batches, 18.2 evaluations each on average, 31 % of them ≤ 8". */
export function batchCell(s: BatchStats | undefined): string {
  if (!s || s.batches === 0) return 'n/a';
  return `${s.batches.toLocaleString('en-US')} batches, ${(s.evaluations / s.batches).toFixed(1)} evaluations each on average, ${Math.round((100 * s.upTo8) / s.batches)} % of them ≤ 8`;
}

export interface TargetResult {
  name: 'baseline' | 'embedded' | 'postgres';
  skipped?: string;
  error?: string;
  responseBytes?: number;
  /** 1-minute load average when the target started: other work on the machine shows here. */
  loadAvgBefore?: number;
  closed?: ClosedLoopResult;
  closedCpu?: CpuUse;
  /** PostgreSQL sessions by state during the closed loop. */
  closedWaits?: WaitProfile;
  /** Audit batches committed during the closed loop and the paced run (from /metrics). */
  closedBatches?: BatchStats;
  pacedBatches?: BatchStats;
  paced?: PacedResult;
  pacedCpu?: CpuUse;
  warmupNon2xx?: number;
  memory?: { beforeMiB: number; afterClosedMiB: number; afterPacedMiB: number; peakMiB: number };
  exit?: string;
  audit?: {
    answered2xx: number;
    /**
     * Requests sent but never answered: in flight when autocannon's duration ended, or failed on the
     * client (timeout, reset). The server may have processed them.
     */
    unanswered: number;
    evaluations: number;
    transactions: number;
    /** evaluation_id of every paced 2xx answer, looked up in the store. */
    idsChecked: number;
    idsFound: number;
    ok: boolean;
  };
}

export interface Machine {
  nproc: number;
  cpu: string;
  memGiB: number;
  node: string;
  kernel: string;
  date: string;
  postgres?: string;
  loadAvgEnd?: number;
  /** The commit checked out (read from .git, without running git); the working tree may differ. */
  commit?: string;
}

function headCommit(): string | undefined {
  const gitDir = join(ROOT, '.git');
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref:')) return head.slice(0, 12);
    const ref = head.slice(4).trim();
    try {
      return readFileSync(join(gitDir, ref), 'utf8').trim().slice(0, 12);
    } catch {
      const packed = readFileSync(join(gitDir, 'packed-refs'), 'utf8');
      return packed
        .split('\n')
        .find((l) => l.endsWith(` ${ref}`))
        ?.slice(0, 12);
    }
  } catch {
    return undefined;
  }
}

/** Targets the service is held to. */
const GOAL_RATIO = 0.5;
const GOAL_P99_MS = 10;

const LABEL: Record<TargetResult['name'], string> = {
  baseline: 'Bare Fastify baseline',
  embedded: 'Real server, embedded store (PGlite)',
  postgres: 'Real server, PostgreSQL',
};

export function machineInfo(postgres?: string): Machine {
  return {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    memGiB: totalmem() / 2 ** 30,
    node: process.version,
    kernel: release(),
    date: new Date().toISOString(),
    postgres,
    commit: headCommit(),
  };
}

const f = (n: number | undefined, digits = 1): string =>
  n === undefined || Number.isNaN(n)
    ? 'n/a'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const i = (n: number | undefined): string => (n === undefined ? 'n/a' : n.toLocaleString('en-US'));
const pct = (p: Percentiles, d = 2) =>
  `${f(p.p50, d)} / ${f(p.p90, d)} / ${f(p.p99, d)} / ${f(p.p999, d)} / ${f(p.max, d)}`;
const cpuText = (c: CpuUse, pg: boolean) =>
  `machine ${f(c.machineBusyPct, 0)} % busy; server ${f(c.serverCores, 2)} cores (${f(c.serverMsPerReq, 3)} ms/req;` +
  ` main thread ${f(c.mainThreadCores, 2)}, busiest other thread ${f(c.otherThreadCores, 2)})` +
  (pg ? `; PostgreSQL ${f(c.postgresCores, 2)} cores (${f(c.postgresMsPerReq, 3)} ms/req)` : '') +
  `; load generator ${f(c.loaderCores, 2)} cores (${f(c.loaderMsPerReq, 3)} ms/req)`;

/** CPU ms of every bench process (server, PostgreSQL, load generator) per request in the closed loop. */
const totalCpuMs = (r: TargetResult | undefined): number | undefined =>
  r?.closedCpu
    ? r.closedCpu.serverMsPerReq + r.closedCpu.postgresMsPerReq + r.closedCpu.loaderMsPerReq
    : undefined;

/**
 * The throughput ratio the machine would give with nothing else running, if CPU is the limit:
 * baseline CPU per request ÷ real CPU per request (all bench processes).
 */
const cpuRatio = (r: TargetResult, base: TargetResult | undefined): number | undefined => {
  const a = totalCpuMs(base);
  const b = totalCpuMs(r);
  return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
};

/** Display width of a cell: code points (every character used here is one column wide). */
const width = (cell: string): number => [...cell].length;

/**
 * Pads every Markdown table to aligned columns, as the repository's formatter (Biome) writes them,
 * so that the generated file passes `biome check` as it is. Cells never contain a `|`.
 */
export function alignTables(lines: string[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < lines.length; ) {
    if (!lines[k]!.startsWith('|')) {
      // Prose: runs of spaces collapse to one, as the formatter would write them.
      out.push(lines[k++]!.replace(/(\S) {2,}/g, '$1 '));
      continue;
    }
    const block: string[][] = [];
    while (k < lines.length && lines[k]!.startsWith('|'))
      block.push(
        lines[k++]!.slice(1, -1)
          .split('|')
          .map((c) => c.trim().replace(/ {2,}/g, ' ')),
      );
    const cols = Math.max(...block.map((r) => r.length));
    const widths = Array.from({ length: cols }, (_, c) =>
      Math.max(3, ...block.map((r, j) => (j === 1 ? 0 : width(r[c] ?? '')))),
    );
    block.forEach((r, j) => {
      const cells = widths.map((wd, c) =>
        j === 1 ? '-'.repeat(wd) : (r[c] ?? '') + ' '.repeat(wd - width(r[c] ?? '')),
      );
      out.push(`| ${cells.join(' | ')} |`);
    });
  }
  return out;
}

/** Writes RESULTS.md; returns the integrity failures (non-2xx, errors, missing audit rows). */
export function writeResults(
  file: string,
  run: { settings: Settings; machine: Machine; results: TargetResult[] },
): string[] {
  const { settings: s, machine: m, results } = run;
  const closedM = `autocannon closed loop, ${s.connections} connections, ${s.durationS} s after ${s.warmupS} s warm-up`;
  const pacedM = `paced open loop at ${i(s.rate)} req/s, ${s.durationS} s after ${s.pacedWarmupS} s warm-up`;
  const baseline = results.find((r) => r.name === 'baseline');
  const baseRps = baseline?.closed?.reqPerSec;
  const failures: string[] = [];
  const out: string[] = [];
  const w = (line = '') => out.push(line);

  w('## Rule evaluation: throughput, latency, audit integrity (issues #2, #6)');
  w();
  w(`Generated by \`npm run bench\` (bench/run.ts) on ${m.date}. Re-running overwrites this section.`);
  w();
  w('### Machine');
  w();
  w('| | |');
  w('|---|---|');
  w(`| CPU | ${m.cpu} |`);
  w(`| nproc | ${m.nproc} |`);
  w(`| Memory | ${f(m.memGiB)} GiB |`);
  w(`| Node | ${m.node} |`);
  w(`| Kernel | ${m.kernel} |`);
  w(`| Code | commit ${m.commit ?? 'unknown'} plus whatever was uncommitted in src/ at run time |`);
  if (m.postgres)
    w(
      `| PostgreSQL | ${m.postgres} (local, same machine, default durability: fsync and synchronous_commit on) |`,
    );
  w(
    `| Load average (1 min) | ${results.map((r) => `${f(r.loadAvgBefore, 2)} before ${r.name}`).join(', ')}, ${f(m.loadAvgEnd, 2)} at the end |`,
  );
  w(hostSpeedRow());
  w();
  w(
    `The load generator (one Node process running autocannon, then the paced client), the server under test` +
      ` and, for the PostgreSQL target, the PostgreSQL backends all share these ${m.nproc} cores.` +
      ' A load average well above what the bench itself puts on the machine means other work was running' +
      ' (e.g. test suites): the absolute numbers are then lower and noisier; the CPU-per-request figures much less so.',
  );
  w();

  w('### Method');
  w();
  const responses = results
    .filter((r) => r.responseBytes)
    .map((r) => `${r.name} ${i(r.responseBytes)} B`)
    .join(', ');
  w(
    `- **Payload** (same for every target): a transaction evaluation of ~${Buffer.byteLength(transactionBody('demo'))} bytes;` +
      ` \`customer_id\` drawn from a pool of ${i(CUSTOMER_POOL)} ids, a unique \`trigger_entity_id\` per request,` +
      ` \`amount_eur\` log-normal (median EUR 200; about 14 % ≥ 1,000 and 0.5 % ≥ 10,000), the booleans and enums varied per request. Responses: ${responses}.`,
  );
  w(
    `- **Closed loop** (${closedM}; pipelining 1): each connection sends its next request as soon as the previous` +
      ' answer is in, so the server is saturated; this measures throughput. Its latencies include queueing behind' +
      ' the other connections (p50 ≈ connections ÷ throughput) and have autocannon’s 1 ms resolution.' +
      ' autocannon’s `-R` is not used for latency: autocannon’s -R sends each connection’s quota for a second in' +
      ' one burst, so its fixed-rate latencies are burst latencies.',
  );
  w(
    `- **Paced open loop** (${pacedM}; bench/paced.ts, undici Pool of ${s.pacedConnections} connections):` +
      ' request _i_ is due at start + _i_/rate whatever happened to the earlier ones (scheduled by target send time,' +
      ' not by completion). Each latency, dispatch → last byte of the response body, is taken with' +
      ' `process.hrtime.bigint()`; every sample is kept, so the percentiles are exact. _From schedule_ measures from' +
      ' the due time instead (includes any send lag; immune to coordinated omission). _Late_ counts requests' +
      ' dispatched more than 2 ms after their due time (Node timers fire with 1 ms granularity, so up to ~2 ms is' +
      ' the resolution of the schedule); _queued_ counts requests' +
      ' due while all pooled connections were busy. When half a second’s worth of requests is outstanding, or the' +
      ' oldest has waited 3 s, the server is not keeping up: the run stops sending (reported as overloaded) instead' +
      ' of queueing into timeouts.',
  );
  w(
    '- **CPU**: user + system time from /proc of the server process, of every `postgres` process (PostgreSQL target' +
      ' only; includes anyone else using that server) and of the load generator, over each measured window,' +
      ' as cores used and as CPU ms per answered request; machine busy share from /proc/stat. The _CPU-normalised' +
      ' ratio_ is baseline ÷ real CPU ms per request summed over those processes: the throughput ratio to expect' +
      ' on this machine with nothing else running, when CPU is the limit (it ignores waits such as commit fsyncs).',
  );
  w(
    '- **RSS**: VmRSS of the server process from /proc/<pid>/status before the warm-up, after the closed loop and' +
      ' after the paced run; peak is VmHWM (includes start-up).',
  );
  w(
    '- **Audit check**: after the run the server is stopped with SIGTERM (it drains and flushes its audit writer);' +
      ' then the `evaluations` and `customer_transactions` rows are counted with SQL (PostgreSQL: directly;' +
      ' embedded: the store opened with `openDatabase` from src/storage/db.ts in a separate process). The' +
      ' `evaluation_id` of every 2xx answer of every phase (probe, warm-ups, measured runs; collected from the bodies' +
      ' by both clients, for the baseline too so the load generator does the same work) must be found in' +
      ' `evaluations`; the row count must lie between the 2xx count and the 2xx count plus the requests never' +
      ' answered (abandoned in flight when autocannon’s duration ended, one per connection per run, or failed on the' +
      ' client: the server may or may not have processed them), and every evaluation must have its' +
      ' `customer_transactions` window row.',
  );
  w(
    '- Every request goes to 127.0.0.1. Each real target starts on a fresh store (new temp data dir / schema).',
  );
  w();

  // ---- goals
  w('### Targets');
  w();
  w('| Goal | Target | Measured | Verdict |');
  w('|---|---|---|---|');
  for (const r of results) {
    if (r.name === 'baseline') continue;
    if (r.skipped || r.error || !r.closed || !r.paced) {
      w(
        `| throughput ≥ 50 % of baseline, every audit row committed | ${r.name} | ${r.skipped ?? r.error ?? 'n/a'} | n/a |`,
      );
      continue;
    }
    const ratio = baseRps ? r.closed.reqPerSec / baseRps : NaN;
    const auditOk = r.audit?.ok === true;
    w(
      `| throughput ≥ 50 % of baseline (${closedM}), every audit row committed | ${r.name} |` +
        ` ${f(ratio * 100)} % (${f(r.closed.reqPerSec, 0)} vs ${f(baseRps, 0)} req/s); audit rows` +
        ` ${auditOk ? 'complete' : 'INCOMPLETE'} | ${ratio >= GOAL_RATIO && auditOk ? 'MET' : 'MISS'} |`,
    );
    const p = r.paced;
    const p99Ok = p.latency.p99 <= GOAL_P99_MS && p.overloadedAtS === undefined;
    const over = p.overloadedAtS !== undefined ? `; overloaded after ${f(p.overloadedAtS, 1)} s` : '';
    w(
      `| p99 ≤ ${GOAL_P99_MS} ms at 1,000 req/s (${pacedM}) | ${r.name} | p99 ${f(p.latency.p99, 2)} ms` +
        ` (from schedule ${f(p.fromSchedule.p99, 2)} ms)${over} | ${p99Ok ? 'MET' : 'MISS'}${s.rate !== 1000 ? ' (rate ≠ 1,000)' : ''} |`,
    );
  }
  w();

  // ---- summary
  w('### Summary');
  w();
  w(
    `| Target | req/s (${closedM}) | real / baseline | CPU-normalised ratio | p50 / p97.5 / p99 ms (same closed loop) | server CPU ms/req (same closed loop) |` +
      ` p50 / p90 / p99 / p99.9 / max ms (${pacedM}) | non-2xx + errors | audit rows complete | RSS before → after (peak) MiB |`,
  );
  w('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    if (!r.closed || !r.paced) {
      w(`| ${LABEL[r.name]} | ${r.skipped ?? r.error?.split('\n')[0] ?? 'n/a'} | | | | | | | | |`);
      continue;
    }
    const c = r.closed;
    const bad = c.non2xx + c.errors + r.paced.non2xx + r.paced.errors + (r.warmupNon2xx ?? 0);
    const ratio = r.name === 'baseline' ? '1.00' : baseRps ? f(c.reqPerSec / baseRps, 2) : 'n/a';
    const audit = r.audit
      ? `${r.audit.ok ? 'yes' : 'NO'} (${i(r.audit.evaluations)} rows)`
      : 'n/a (no store)';
    const mem = r.memory
      ? `${f(r.memory.beforeMiB, 0)} → ${f(r.memory.afterPacedMiB, 0)} (${f(r.memory.peakMiB, 0)})`
      : 'n/a';
    const over = r.paced.overloadedAtS !== undefined ? ' (overloaded)' : '';
    w(
      `| ${LABEL[r.name]} | ${f(c.reqPerSec, 0)} | ${ratio} | ${r.name === 'baseline' ? '1.00' : f(cpuRatio(r, baseline), 2)} | ${f(c.latency.p50, 0)} / ${f(c.latency.p97_5, 0)} / ${f(c.latency.p99, 0)} |` +
        ` ${f(r.closedCpu?.serverMsPerReq, 3)} | ${pct(r.paced.latency)}${over} | ${i(bad)} | ${audit} | ${mem} |`,
    );
  }
  w();

  // ---- per target
  for (const r of results) {
    w(`### ${LABEL[r.name]}`);
    w();
    if (r.skipped) {
      w(`Skipped: ${r.skipped}.`);
      w();
      continue;
    }
    if (r.error) {
      w(`**Failed:** ${r.error.split('\n')[0]}`);
      w();
      failures.push(`${r.name}: ${r.error.split('\n')[0]}`);
    }
    if (!r.closed || !r.paced) continue;
    const c = r.closed;
    const p = r.paced;
    const pg = r.name === 'postgres';
    w('| Metric | Method | Value |');
    w('|---|---|---|');
    w(
      `| throughput | ${closedM} | **${f(c.reqPerSec, 0)} req/s** (${i(c.total)} requests in ${f(c.durationS, 1)} s) |`,
    );
    if (r.name !== 'baseline' && baseRps)
      w(`| real / baseline throughput | ${closedM}, both targets | **${f(c.reqPerSec / baseRps, 2)}** |`);
    if (r.name !== 'baseline' && cpuRatio(r, baseline) !== undefined)
      w(
        `| CPU-normalised ratio | baseline ÷ real CPU ms per request of all bench processes (${f(totalCpuMs(baseline), 3)} ÷ ${f(totalCpuMs(r), 3)} ms), same closed loops | ${f(cpuRatio(r, baseline), 2)} |`,
      );
    w(
      `| latency p50 / p97.5 / p99 / max | ${closedM} | ${f(c.latency.p50, 0)} / ${f(c.latency.p97_5, 0)} / ${f(c.latency.p99, 0)} / ${f(c.latency.max, 0)} ms (mean ${f(c.latency.mean, 2)}) |`,
    );
    w(`| non-2xx / errors / timeouts | ${closedM} | ${i(c.non2xx)} / ${i(c.errors)} / ${i(c.timeouts)} |`);
    if (r.closedCpu) w(`| CPU | ${closedM} | ${cpuText(r.closedCpu, pg)} |`);
    if (r.closedBatches)
      w(`| audit batches committed (group commit) | ${closedM} | ${batchCell(r.closedBatches)} |`);
    if (r.closedWaits?.samples)
      w(
        `| PostgreSQL sessions of the server, by state — statement (average number over ${i(r.closedWaits.samples)} samples of pg_stat_activity) | ${closedM} | ${Object.entries(
          r.closedWaits.sessions,
        )
          .slice(0, 6)
          .map(([k, v]) => `${f(v, 2)} ${k.replaceAll('|', '/')}`)
          .join('; ')} |`,
      );
    w(
      `| latency p50 / p90 / p99 / p99.9 / max | ${pacedM}, dispatch → response | **${pct(p.latency)} ms** |`,
    );
    w(
      `| latency p50 / p90 / p99 / p99.9 / max | ${pacedM}, due time → response | ${pct(p.fromSchedule)} ms |`,
    );
    w(
      `| requests scheduled / sent / 2xx / non-2xx / errors | ${pacedM} | ${i(p.scheduled)} / ${i(p.sent)} / ${i(p.ok)} / ${i(p.non2xx)} / ${i(p.errors)} |`,
    );
    if (p.overloadedAtS !== undefined)
      w(
        `| overload | ${pacedM} | **the server did not keep up**: ${i(p.maxBacklog)} requests outstanding after ${f(p.overloadedAtS, 2)} s, the remaining ${i(p.scheduled - p.sent)} were not sent |`,
      );
    w(
      `| sent late (> ${p.lateMs} ms) / queued / send lag p99, max / achieved send rate | ${pacedM} | ${i(p.late)} / ${i(p.queued)} / ${f(p.sendLag.p99, 2)}, ${f(p.sendLag.max, 2)} ms / ${f(p.sentRate, 0)} req/s |`,
    );
    if (r.pacedCpu) w(`| CPU | ${pacedM} | ${cpuText(r.pacedCpu, pg)} |`);
    if (r.pacedBatches)
      w(`| audit batches committed (group commit) | ${pacedM} | ${batchCell(r.pacedBatches)} |`);
    if (r.warmupNon2xx) w(`| non-2xx + errors during the warm-ups | both warm-ups | ${i(r.warmupNon2xx)} |`);
    if (r.memory)
      w(
        `| server RSS before / after closed loop / after paced / peak | /proc/<pid>/status VmRSS, VmHWM | ${f(r.memory.beforeMiB, 0)} / ${f(r.memory.afterClosedMiB, 0)} / ${f(r.memory.afterPacedMiB, 0)} / ${f(r.memory.peakMiB, 0)} MiB |`,
      );
    if (r.audit) {
      const a = r.audit;
      w(
        `| 2xx answers whose evaluation_id is stored | SQL lookup of every answered id after SIGTERM (exit ${r.exit}) | ${i(a.idsFound)} of ${i(a.answered2xx)} (${i(a.idsChecked)} ids read from the answers)${a.idsFound === a.answered2xx && a.idsChecked === a.answered2xx ? ' — **every answered evaluation has its audit row**' : ' — **MISSING ROWS**'} |`,
      );
      w(
        `| stored evaluations / window rows | SQL count | ${i(a.evaluations)} / ${i(a.transactions)} = ${i(a.answered2xx)} answered + ${i(a.evaluations - a.answered2xx)} of the ${i(a.unanswered)} requests never answered (abandoned in flight at autocannon’s stop, or failed on the client) |`,
      );
    }
    w();
    const bad = c.non2xx + c.errors + p.non2xx + p.errors + (r.warmupNon2xx ?? 0);
    if (bad > 0) failures.push(`${r.name}: ${bad} non-2xx responses or errors`);
    if (r.audit && !r.audit.ok)
      failures.push(
        `${r.name}: ${r.audit.idsFound} of ${r.audit.answered2xx} answered evaluation ids stored (${r.audit.idsChecked} read); ${r.audit.evaluations} evaluations and ${r.audit.transactions} window rows stored, ${r.audit.unanswered} requests abandoned in flight`,
      );
  }

  // ---- interpretation
  w('### Interpretation');
  w();
  for (const line of interpret(s, m, results, baseRps)) w(`- ${line}`);
  w();
  if (failures.length) {
    w('### Integrity failures');
    w();
    for (const x of failures) w(`- ${x}`);
    w();
  }
  writeSection(file, 'evaluate', alignTables(out).join('\n'));
  return failures;
}

/** A few sentences derived from the numbers, so that they stay true when the run is repeated. */
function interpret(s: Settings, m: Machine, results: TargetResult[], baseRps: number | undefined): string[] {
  const lines: string[] = [];
  const base = results.find((r) => r.name === 'baseline');
  const othersOf = (c: CpuUse | undefined) =>
    c ? Math.max(0, (c.machineBusyPct / 100) * m.nproc - c.serverCores - c.postgresCores - c.loaderCores) : 0;
  const noisiest = Math.max(...results.flatMap((r) => [othersOf(r.closedCpu), othersOf(r.pacedCpu)]));
  if (noisiest > 0.3)
    lines.push(
      `Other work was running on the machine (up to ~${f(noisiest, 1)} of the ${m.nproc} cores used by processes outside` +
        ' the bench during a measured window): throughput and tail latencies are depressed by it and vary between' +
        ' runs; the CPU ms per request and the CPU-normalised ratio much less so.',
    );
  if (base?.closed && base.paced)
    lines.push(
      `The baseline (Fastify parsing the same body and answering a response of the same size, nothing else) does` +
        ` ${f(base.closed.reqPerSec, 0)} req/s at ${f(base.closedCpu?.serverMsPerReq, 3)} ms of server CPU per request:` +
        ` the ceiling of HTTP + JSON on this machine with the load generator sharing the cores. Its paced p99` +
        ` (${f(base.paced.latency.p99, 2)} ms) is roughly what the client, the kernel and the scheduler add to any target.`,
    );
  for (const r of results) {
    if (r.name === 'baseline' || !r.closed || !r.paced || !baseRps) continue;
    const ratio = r.closed.reqPerSec / baseRps;
    const cpu = r.closedCpu;
    const label = LABEL[r.name];
    let where = '';
    if (cpu) {
      const ours = cpu.serverCores + cpu.postgresCores + cpu.loaderCores;
      const others = Math.max(0, (cpu.machineBusyPct / 100) * m.nproc - ours);
      const topWait = Object.entries(r.closedWaits?.sessions ?? {}).find(([k]) => !k.startsWith('running'));
      where =
        ` The server process used ${f(cpu.serverCores, 2)} cores (${f(cpu.serverMsPerReq, 3)} ms CPU per evaluation vs` +
        ` ${f(base?.closedCpu?.serverMsPerReq, 3)} ms for the baseline)` +
        (r.name === 'postgres'
          ? `, PostgreSQL ${f(cpu.postgresCores, 2)} cores (${f(cpu.postgresMsPerReq, 3)} ms per evaluation)`
          : '') +
        `, the load generator ${f(cpu.loaderCores, 2)}, other processes ~${f(others, 1)} of the ${m.nproc} cores. ` +
        (cpu.mainThreadCores > 0.85 || cpu.otherThreadCores > 0.85
          ? `One thread of the server is saturated (${cpu.mainThreadCores >= cpu.otherThreadCores ? `the main thread: ${f(cpu.mainThreadCores, 2)} cores` : `a worker thread, e.g. the embedded database's: ${f(cpu.otherThreadCores, 2)} cores; main thread ${f(cpu.mainThreadCores, 2)}`}): the server is CPU-bound on it.`
          : others > 0.5
            ? 'Other work took much of the machine, so this throughput is below what the code can do; the CPU-normalised ratio is the better estimate.'
            : cpu.machineBusyPct > 90
              ? 'The cores are shared out between server, database and load generator: the machine is the limit.'
              : 'Neither a server thread nor the machine is saturated: the server waits (database round trips, locks, commits).') +
        (topWait
          ? ` Most common database wait: ${f(topWait[1], 2)} sessions on average in “${topWait[0]}”.`
          : '');
    }
    const cr = cpuRatio(r, base);
    lines.push(
      `${label}: ${f(ratio * 100)} % of the baseline throughput (goal ≥ 50 %: ${ratio >= GOAL_RATIO ? 'met' : 'missed'}` +
        `${cr !== undefined ? `; CPU-normalised ${f(cr * 100)} %` : ''}).` +
        where +
        ` Closed-loop p50 ${f(r.closed.latency.p50, 0)} ms is mostly queueing of ${s.connections} connections` +
        ` (${s.connections} ÷ ${f(r.closed.reqPerSec, 0)} req/s ≈ ${f((s.connections / r.closed.reqPerSec) * 1000, 1)} ms).`,
    );
    const p = r.paced;
    if (p.overloadedAtS !== undefined)
      lines.push(
        `${label} at ${i(s.rate)} req/s paced: overloaded — its capacity (${f(r.closed.reqPerSec, 0)} req/s closed loop)` +
          ` is below the offered rate, the backlog reached ${i(p.maxBacklog)} requests after ${f(p.overloadedAtS, 2)} s;` +
          ` the latencies of the ${i(p.ok)} answered requests (p99 ${f(p.latency.p99, 0)} ms) are queueing delay.` +
          ` Goal p99 ≤ ${GOAL_P99_MS} ms: missed.`,
      );
    else
      lines.push(
        `${label} at ${i(s.rate)} req/s paced: p50 ${f(p.latency.p50, 2)} ms, p99 ${f(p.latency.p99, 2)} ms,` +
          ` p99.9 ${f(p.latency.p999, 2)} ms, max ${f(p.latency.max, 2)} ms (goal p99 ≤ ${GOAL_P99_MS} ms:` +
          ` ${p.latency.p99 <= GOAL_P99_MS ? 'met' : 'missed'}).` +
          (p.queued > p.sent / 100
            ? ` ${i(p.queued)} of ${i(p.sent)} requests found all ${i(p.connections)} connections busy: the server answered` +
              ' slower than the offered rate for stretches (near saturation), and they waited in the client queue (counted in the latency).'
            : '') +
          (p.late > p.sent / 100
            ? ` ${i(p.late)} left more than ${p.lateMs} ms after their due time (send lag p99 ${f(p.sendLag.p99, 2)} ms): the` +
              ' load generator itself was short of CPU; the from-schedule row includes that lag.'
            : ''),
      );
    if (r.audit)
      lines.push(
        r.audit.ok
          ? `${label}: all ${i(r.audit.answered2xx)} answered evaluations found in the store by evaluation_id after the graceful stop — every answered evaluation has its committed audit record (and its rolling-window row); ${i(r.audit.evaluations)} rows in all, the difference being requests autocannon abandoned in flight that the server still processed.`
          : `${label}: ${i(r.audit.idsFound)} of ${i(r.audit.answered2xx)} answered evaluations found in the store — MISMATCH.`,
      );
    if (r.memory)
      lines.push(
        `${label}: RSS ${f(r.memory.beforeMiB, 0)} MiB before load, ${f(r.memory.afterClosedMiB, 0)} MiB after the closed loop, ${f(r.memory.afterPacedMiB, 0)} MiB at the end (peak ${f(r.memory.peakMiB, 0)} MiB).`,
      );
  }
  return lines;
}
