import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CpuUse, cpuSnapshot, cpuUse, loadAverage } from './cpu.ts';
import { hostSpeedRow } from './host-speed.ts';
import { type PacedOptions, type PacedResult, type Percentiles, runPaced } from './paced.ts';
import { ADMIN_URL, postgresReachable, postgresVersion, queryRows, resetBenchDatabase } from './postgres.ts';
import {
  type Child,
  killAll,
  memoryOf,
  ROOT,
  runNode,
  startNode,
  startServerNode,
  stop,
  stopAll,
  waitHealthy,
  waitListening,
} from './processes.ts';
import { alignTables, machineInfo } from './report.ts';
import { writeSection } from './results-file.ts';

/**
 * What the screening, travel-rule, webhook and export benchmarks share: the real server on either
 * store with a bench client, the baseline, the loop over the targets, measured paced runs,
 * integrity queries, the Markdown of their sections of RESULTS.md, and clean-up of every child and
 * temporary directory at exit. The evaluation bench (run.ts) keeps its own start-up of the real
 * server (the PostgreSQL client is made with the CLI before the server starts, as an operator
 * would); it shares the process plumbing, the limits and the operator API call.
 */

export type TargetName = 'embedded' | 'postgres';

/** The database of these benchmarks on the PostgreSQL server (`mica_bench` is the evaluation bench's). */
export const EXTRA_DB = process.env.BENCH_EXTRA_DB || 'mica_bench_extra';

export const num = (name: string, fallback: number): number => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};

/** `BENCH_TARGETS` (default both stores). */
export function targets(): TargetName[] {
  return (process.env.BENCH_TARGETS || 'embedded,postgres')
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is TargetName => s === 'embedded' || s === 'postgres');
}

const t0 = Date.now();
export const logger =
  (bench: string) =>
  (msg: string): void => {
    process.stdout.write(`[${bench} ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${msg}\n`);
  };

const tempDirs = new Set<string>();
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Kills every child and removes the temporary directories on exit, error or Ctrl-C. */
export function installExitHandlers(): void {
  process.on('exit', () => {
    killAll();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      killAll();
      process.exit(130);
    });
}

/** The message of a caught error, as a result records it. */
export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Runs a benchmark's main, stops every child politely, exits with its code. */
export function runMain(name: string, main: () => Promise<number>): void {
  installExitHandlers();
  main()
    .catch((e) => {
      process.stderr.write(`${name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      return 1;
    })
    .then(async (code) => {
      await stopAll();
      process.exit(code);
    });
}

/** Limits far above what a bench sends: the limiter stays on the request path but never refuses. */
export const HIGH_LIMITS = {
  rate_limits: { per_minute: 100_000_000, burst_per_minute: 100_000_000, per_day: 1_000_000_000 },
};
/** Compliance officers of the bench client: its cases get assignees, as in production. */
export const OFFICERS = ['officer-a', 'officer-b'];

/**
 * An operator command through a running server's operator API (`POST /api/admin/commands/<name>`
 * with the operator token), what the CLI does when a server holds the store.
 */
export function operatorCommand(origin: string, token: string) {
  return async (name: string, args: Record<string, unknown>): Promise<unknown> => {
    const res = await fetch(`${origin}/api/admin/commands/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ args, actor: 'bench' }),
    });
    const body = (await res.json()) as { result?: unknown };
    if (!res.ok) throw new Error(`operator command ${name} answered ${res.status}: ${JSON.stringify(body)}`);
    return body.result;
  };
}

export interface RealServer {
  target: TargetName;
  child: Child;
  origin: string;
  clientId: string;
  /** A standard API key of the bench client. */
  key: string;
  headers: Record<string, string>;
  databaseUrl?: string;
  dataDir: string;
  /** An operator command through the server's operator API (what the CLI does when a server runs). */
  command(name: string, args: Record<string, unknown>): Promise<unknown>;
  /**
   * Runs queries on the store and returns the rows of each. PostgreSQL: at any time. Embedded: only
   * once the server has stopped (the store admits one process), in a separate process.
   */
  query(queries: Array<{ text: string; params?: unknown[] }>): Promise<Array<Array<Record<string, unknown>>>>;
  /** SIGTERM (the server drains and flushes its audit writer) and wait. */
  stop(): Promise<string>;
}

/** BENCH_SERVER_NODE_ARGS: extra Node flags for the real servers (diagnosis, e.g. --trace-gc). */
function extraServerArgs(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
}

/**
 * The real server (`src/main.ts` with the flags of `npm start`) on a fresh embedded store or on a freshly reset
 * `mica_bench_extra` database, with the client `bench` (limits far above the load, two compliance
 * officers) and a standard key made through the operator API.
 */
export async function startRealServer(
  target: TargetName,
  opts: { env?: Record<string, string>; profileDir?: string; log?: (m: string) => void } = {},
): Promise<RealServer> {
  const dataDir = tempDir('mica-bench-x-');
  // BENCH_CPU_PROF_DIR=<dir> profiles the servers of every bench into that directory (kept).
  const profileDir = opts.profileDir ?? (process.env.BENCH_CPU_PROF_DIR || undefined);
  if (profileDir && !opts.profileDir) opts.log?.(`${target}: CPU profile in ${profileDir}`);
  const token = randomBytes(24).toString('base64url');
  const databaseUrl = target === 'postgres' ? await resetBenchDatabase(ADMIN_URL, EXTRA_DB) : undefined;
  const child = startServerNode(
    `server (${target})`,
    {
      PORT: '0',
      HOST: '127.0.0.1',
      MICA_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      MICA_DEMO_SEED: 'false',
      MICA_OPERATOR_TOKEN: token,
      DATABASE_URL: databaseUrl ?? '',
      // Nothing scheduled during a measurement.
      STR_SWEEP_CRON: 'off',
      AUDIT_MAINTENANCE_CRON: 'off',
      ...opts.env,
    },
    [...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), ...extraServerArgs()],
  );
  // BENCH_SERVER_OUT=<file>: the server's output (e.g. of --trace-gc) is appended there too.
  const outFile = process.env.BENCH_SERVER_OUT;
  if (outFile) {
    const tee = (chunk: Buffer) => appendFileSync(outFile, chunk);
    child.proc.stdout!.on('data', tee);
    child.proc.stderr!.on('data', tee);
  }
  const origin = `http://127.0.0.1:${await waitListening(child, 120_000)}`;
  await waitHealthy(child, origin, 120_000);
  opts.log?.(`${target}: server healthy at ${origin}`);
  const command = operatorCommand(origin, token);
  await command('clients.create', { client_id: 'bench', name: 'Bench CASP', settings: HIGH_LIMITS });
  const [created] = await Promise.all([
    command('keys.create', { client_id: 'bench', role: 'standard', sandbox: false }),
    ...OFFICERS.map((officer) => command('officers.add', { client_id: 'bench', officer })),
  ]);
  const key = (created as { key?: unknown }).key;
  if (typeof key !== 'string') throw new Error(`keys.create returned no key: ${JSON.stringify(created)}`);
  const query: RealServer['query'] = async (queries) => {
    if (databaseUrl) {
      const out: Array<Array<Record<string, unknown>>> = [];
      for (const q of queries) out.push(await queryRows(databaseUrl, q.text, q.params));
      return out;
    }
    if (child.proc.exitCode === null && child.proc.signalCode === null)
      throw new Error('the embedded store can be queried only once its server has stopped');
    const file = join(dataDir, `queries-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify(queries));
    const out = await runNode('query-embedded', 'bench/query-embedded.ts', [dataDir, file], {
      DATABASE_URL: '',
    });
    return JSON.parse(out);
  };
  return {
    target,
    child,
    origin,
    clientId: 'bench',
    key,
    headers: { authorization: `Bearer ${key}` },
    databaseUrl,
    dataDir,
    command,
    query,
    stop: async () => String(await stop(child)),
  };
}

/** The bare Fastify baseline (bench/baseline-server.ts). */
export async function startBaseline(): Promise<{ child: Child; origin: string }> {
  const child = startNode('baseline', 'bench/baseline-server.ts', { PORT: '0' });
  const origin = `http://127.0.0.1:${await waitListening(child)}`;
  await waitHealthy(child, origin);
  return { child, origin };
}

export { loadAverage, memoryOf, ROOT, stop };

/**
 * `measure` for each target of BENCH_TARGETS in turn; PostgreSQL is skipped (logged, no result)
 * when its server cannot be reached, so the embedded store is still measured on a machine without
 * it. Returns the results and the PostgreSQL version for the machine block.
 */
export async function measureTargets<R>(
  log: (m: string) => void,
  measure: (target: TargetName) => Promise<R>,
): Promise<{ results: R[]; pg?: string }> {
  const results: R[] = [];
  let pg: string | undefined;
  for (const target of targets()) {
    if (target === 'postgres') {
      if (!(await postgresReachable())) {
        log('postgres: not reachable, skipped');
        continue;
      }
      pg = await postgresVersion(ADMIN_URL).catch(() => undefined);
    }
    results.push(await measure(target));
  }
  return { results, pg };
}

/**
 * Runs `measure` on a server and always stops it (5 s grace). A failure is recorded in
 * `result.error` instead of ending the benchmark, so the other targets still run and the section
 * is still written; with `failure`, it is logged with the tail of the server's output. Pass the
 * start's promise to record a failed start the same way, or the started server to let a failed
 * start end the benchmark.
 */
export async function measureOn<S extends { child: Child }>(
  server: S | Promise<S>,
  result: { error?: string },
  measure: (server: S) => Promise<void>,
  failure?: { log: (m: string) => void; label: string },
): Promise<void> {
  let started: S | undefined;
  try {
    started = await server;
    await measure(started);
  } catch (e) {
    result.error = errorText(e);
    failure?.log(`${failure.label}: FAILED ${result.error}\n${started?.child.output().slice(-3000) ?? ''}`);
  } finally {
    if (started) await stop(started.child, 5000);
  }
}

/**
 * Seconds of paced warm-up before the measured window of a paced run on a server that has not
 * served that kind of request yet (BENCH_PACED_WARMUP). V8 compiles the service's hot code over its
 * first few thousand requests: after 2 s (1,000 requests at 500/s) the first seconds of the window
 * still ran unoptimised code, with long stretches of the main thread busy. Travel-rule validation,
 * embedded store, 500/s, three pairs alternated: p99 11.11 / 8.10 / 10.34 ms after 2 s of warm-up,
 * 7.50 / 6.17 / 5.55 ms after 8 s; server CPU per validation 1.37–1.66 and 1.15–1.36 ms. A run that
 * follows a closed loop or another run of the same requests keeps the default 2 s.
 */
export const FRESH_WARMUP_S = (() => {
  const v = Number(process.env.BENCH_PACED_WARMUP ?? 8);
  if (!Number.isFinite(v) || v < 0) throw new Error('BENCH_PACED_WARMUP must be a number of seconds ≥ 0');
  return v;
})();

/**
 * A paced run with the CPU used over it (server, PostgreSQL when `withPostgres`, load generator).
 * `afterWarmup` runs between the warm-up and the measured run (e.g. to clear a helper's counters).
 */
export async function measuredPaced(
  pid: number,
  withPostgres: boolean,
  opts: PacedOptions,
  warmupS = 2,
  afterWarmup?: () => void,
): Promise<{ paced: PacedResult; cpu: CpuUse; warm: PacedResult }> {
  const warm = await runPaced({ ...opts, durationS: warmupS });
  afterWarmup?.();
  const a = cpuSnapshot(pid, withPostgres);
  const paced = await runPaced(opts);
  const b = cpuSnapshot(pid, withPostgres);
  return { paced, cpu: cpuUse(a, b, paced.ok + paced.non2xx, pid), warm };
}

// ---- Markdown ----

export const f = (n: number | undefined, digits = 1): string =>
  n === undefined || Number.isNaN(n)
    ? 'n/a'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const int = (n: number | undefined): string => (n === undefined ? 'n/a' : n.toLocaleString('en-US'));
export const pcts = (p: Percentiles, d = 2): string =>
  `${f(p.p50, d)} / ${f(p.p90, d)} / ${f(p.p99, d)} / ${f(p.p999, d)} / ${f(p.max, d)}`;
export const cpuCell = (c: CpuUse, pg: boolean): string =>
  `server ${f(c.serverMsPerReq, 3)}` +
  (pg ? ` + PostgreSQL ${f(c.postgresMsPerReq, 3)}` : '') +
  ` (load generator ${f(c.loaderMsPerReq, 3)}); machine ${f(c.machineBusyPct, 0)} % busy`;
export const pacedNote = (p: PacedResult): string =>
  `${int(p.ok)} × 2xx, ${int(p.non2xx + p.errors)} other; late ${int(p.late)}, queued ${int(p.queued)}` +
  (p.overloadedAtS !== undefined ? `; OVERLOADED at ${f(p.overloadedAtS)} s` : '');
export const verdict = (ok: boolean | undefined): string => (ok === undefined ? 'n/a' : ok ? 'MET' : 'MISS');

/** The machine block every section starts with (load average at start and end of this benchmark). */
/**
 * The opening of a bench's RESULTS.md section: its title, which command wrote it and when, the
 * machine table, and the Method heading that every section continues under.
 */
export function sectionOpening(title: string, script: string, loadStart: number, pg?: string): string[] {
  const file = `bench/${script.replace(/^bench:/, '')}.ts`;
  return [
    `## ${title}`,
    '',
    `Generated by \`npm run ${script}\` (${file}) on ${new Date().toISOString()}.`,
    '',
    ...machineLines(loadStart, pg),
    '',
    '### Method',
    '',
  ];
}

export function machineLines(loadStart: number, pg?: string): string[] {
  const m = machineInfo(pg);
  return [
    '| | |',
    '|---|---|',
    `| Machine | ${m.nproc} × ${m.cpu}, ${f(m.memGiB)} GiB, Node ${m.node}, kernel ${m.kernel}${pg ? `, PostgreSQL ${pg}` : ''} |`,
    `| Code | ${m.commit ? `commit ${m.commit} plus the working tree at run time` : 'working tree'} |`,
    `| Load average (1 min) | ${f(loadStart, 2)} at start, ${f(loadAverage(), 2)} at the end (2 cores: above ~2 means other work shared the machine) |`,
    hostSpeedRow(),
  ];
}

/** Writes the section `name` of bench/RESULTS.md, tables aligned as the formatter wants them. */
export function writeBenchSection(name: string, lines: string[]): string {
  const file = join(ROOT, 'bench', 'RESULTS.md');
  writeSection(file, name, alignTables(lines).join('\n'));
  return file;
}

/**
 * Every answered `trigger_entity_id` (`ids`) must have its evaluation of `triggerType` stored:
 * how many of them are found, once the server has stopped.
 */
export async function auditedIds(
  server: RealServer,
  triggerType: string,
  ids: string[],
): Promise<{ answered: number; found: number; ok: boolean }> {
  const [r] = await server.query([
    {
      text: `SELECT count(DISTINCT trigger_entity_id)::int AS found
               FROM evaluations WHERE trigger_type = $2 AND trigger_entity_id = ANY($1::text[])`,
      params: [ids, triggerType],
    },
  ]);
  const found = Number(r![0]!.found);
  return { answered: ids.length, found, ok: found === ids.length };
}
