import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readServerInfo } from '../src/storage/store-lock.ts';
import { runClosedLoop } from './closed-loop.ts';
import { cpuSnapshot, cpuUse, loadAverage } from './cpu.ts';
import {
  HIGH_LIMITS,
  logger,
  num,
  OFFICERS,
  operatorCommand,
  runMain,
  startBaseline as startBareBaseline,
  targets,
  tempDir,
} from './harness.ts';
import { type PacedResult, runPaced } from './paced.ts';
import { EVALUATION_ID, transactionBody } from './payload.ts';
import {
  ADMIN_URL,
  countStored,
  postgresReachable,
  postgresVersion,
  resetBenchDatabase,
  type StoredCounts,
  sampleWaits,
  type WaitProfile,
} from './postgres.ts';
import {
  type Child,
  memoryOf,
  ROOT,
  runNode,
  startServerNode,
  stop,
  waitHealthy,
  waitListening,
} from './processes.ts';
import {
  batchesBetween,
  batchTotals,
  machineInfo,
  type Settings,
  type TargetResult,
  writeResults,
} from './report.ts';

const settings: Settings = {
  durationS: num('BENCH_DURATION', 10),
  warmupS: num('BENCH_WARMUP', 3),
  // Group commit turns concurrent callers into shared transactions; an inline compliance API has
  // many (every payment flow of every client), so the closed loop uses 128 by default.
  connections: Math.round(num('BENCH_CONNECTIONS', 128)),
  rate: Math.round(num('BENCH_RATE', 1000)),
  pacedWarmupS: 2,
  pacedConnections: 64,
  targets: targets(),
  cpuProfile: process.env.BENCH_CPU_PROF === '1',
};

const PATH = '/api/mica/evaluate';
const log = logger('bench');

interface Server {
  child: Child;
  origin: string;
  clientId: string;
  key?: string;
  /** Counts the audit rows once the server has stopped, and how many of `ids` are stored. */
  count?: (ids: string[]) => Promise<StoredCounts>;
  /** Starts sampling the database sessions' wait events (PostgreSQL only). */
  sampleWaits?: () => { stop: () => Promise<WaitProfile> };
  cleanup?: () => void;
}

/** The audit batch-size totals of a server from /metrics (none for the baseline, which has no /metrics). */
async function auditBatches(origin: string) {
  const text = await fetch(`${origin}/metrics`)
    .then((r) => (r.ok ? r.text() : ''))
    .catch(() => '');
  return batchTotals(text);
}

async function startBaseline(): Promise<Server> {
  return { ...(await startBareBaseline()), clientId: 'demo' };
}

function realServerEnv(dataDir: string): Record<string, string> {
  return { PORT: '0', HOST: '127.0.0.1', MICA_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
}

function profileArgs(profileDir: string | undefined): string[] {
  return profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
}

/**
 * Limits far above anything the bench can send: the per-client rate limiter stays on the request
 * path (its cost is measured) but never refuses.
 */
const BENCH_SETTINGS = JSON.stringify(HIGH_LIMITS);

/**
 * Creates the client `bench` (high rate limits), its compliance officers and an API key with the
 * operator CLI, which works directly on the database when DATABASE_URL is set.
 */
async function createBenchClient(cliEnv: Record<string, string>): Promise<string> {
  const cli = (args: string[]) =>
    runNode(`mica ${args.slice(0, 2).join(' ')}`, 'src/cli/main.ts', args, cliEnv);
  await cli(['clients', 'create', 'bench', '--name', 'Bench CASP', '--settings', BENCH_SETTINGS]);
  const [created] = await Promise.all([
    cli(['keys', 'create', 'bench']),
    ...OFFICERS.map((o) =>
      cli(['officers', 'add', 'bench', o]).catch((e) =>
        log(`officers add failed (cases stay unassigned): ${e}`),
      ),
    ),
  ]);
  const key = (JSON.parse(created) as { key?: unknown }).key;
  if (typeof key !== 'string') throw new Error(`keys create printed no key: ${created}`);
  return key;
}

/**
 * Runs operator commands on a server that holds the embedded store, exactly as the CLI does in that
 * case (src/cli/main.ts: url and operator token from server.json, POST /api/admin/commands/<name>),
 * without paying a CLI process start per command.
 */
async function operatorCommands(dataDir: string) {
  let server = readServerInfo(dataDir);
  for (let i = 0; !server && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    server = readServerInfo(dataDir);
  }
  if (!server) throw new Error(`no server.json in ${dataDir}: the server does not hold the store`);
  return operatorCommand(server.url, server.token);
}

/** The real server on a fresh embedded store (PGlite); the client is made through its operator API. */
async function startEmbedded(profileDir?: string): Promise<Server> {
  const dataDir = tempDir('mica-bench-');
  const child = startServerNode(
    'server (embedded)',
    { ...realServerEnv(dataDir), DATABASE_URL: '', MICA_DEMO_SEED: 'false' },
    profileArgs(profileDir),
  );
  const origin = `http://127.0.0.1:${await waitListening(child)}`;
  await waitHealthy(child, origin);
  log('embedded: server healthy');
  const run = await operatorCommands(dataDir);
  await run('clients.create', {
    client_id: 'bench',
    name: 'Bench CASP',
    settings: JSON.parse(BENCH_SETTINGS),
  });
  const [created] = await Promise.all([
    run('keys.create', { client_id: 'bench', role: 'standard', sandbox: false }),
    ...OFFICERS.map((officer) =>
      run('officers.add', { client_id: 'bench', officer }).catch((e) =>
        log(`officers.add failed (cases stay unassigned): ${e}`),
      ),
    ),
  ]);
  const key = (created as { key?: unknown }).key;
  if (typeof key !== 'string') throw new Error(`keys.create returned no key: ${JSON.stringify(created)}`);
  return {
    child,
    origin,
    clientId: 'bench',
    key,
    count: async (ids) => {
      const idsFile = join(dataDir, 'answered-ids.json');
      writeFileSync(idsFile, JSON.stringify(ids));
      const out = await runNode('count-embedded', 'bench/count-embedded.ts', [dataDir, idsFile], {
        DATABASE_URL: '',
      });
      return JSON.parse(out) as StoredCounts;
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** The real server on the `mica_bench` database; the client is made directly on it with the CLI. */
async function startPostgres(profileDir?: string): Promise<Server> {
  const url = await resetBenchDatabase();
  const dataDir = tempDir('mica-bench-');
  const key = await createBenchClient({ DATABASE_URL: url, MICA_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  log('postgres: client and key made with the CLI');
  const child = startServerNode(
    'server (postgres)',
    { ...realServerEnv(dataDir), MICA_DEMO_SEED: 'false', DATABASE_URL: url },
    profileArgs(profileDir),
  );
  const origin = `http://127.0.0.1:${await waitListening(child)}`;
  await waitHealthy(child, origin);
  log('postgres: server healthy');
  return {
    child,
    origin,
    clientId: 'bench',
    key,
    count: (ids) => countStored(url, ids),
    sampleWaits: () => sampleWaits(url),
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** Warm-up, closed loop, paced loop, memory, stop, audit check: the same sequence for every target. */
async function measure(name: TargetResult['name'], start: () => Promise<Server>): Promise<TargetResult> {
  const result: TargetResult = { name, loadAvgBefore: loadAverage() };
  const withPostgres = name === 'postgres';
  let server: Server | undefined;
  try {
    log(`${name}: starting`);
    server = await start();
    const srv = server;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (srv.key) headers.authorization = `Bearer ${srv.key}`;
    const body = () => transactionBody(srv.clientId);
    const ids: string[] = [];
    let answered = 0;
    let unanswered = 0;

    // One request by hand first: a wrong key or payload should fail loudly, not as 10 s of 401s.
    const probe = await fetch(`${srv.origin}${PATH}`, { method: 'POST', headers, body: body() });
    const probeText = await probe.text();
    if (probe.status !== 200)
      throw new Error(`probe request answered ${probe.status}: ${probeText.slice(0, 500)}`);
    answered++;
    const probeId = EVALUATION_ID.exec(probeText)?.[1];
    if (probeId) ids.push(probeId);
    result.responseBytes = Buffer.byteLength(probeText);

    const closedOpts = { origin: srv.origin, path: PATH, headers, body, connections: settings.connections };
    const before = memoryOf(srv.child.pid);
    log(`${name}: closed loop warm-up ${settings.warmupS}s`);
    const warm = await runClosedLoop({ ...closedOpts, durationS: settings.warmupS });
    if (warm.non2xx > 0 || warm.errors > 0)
      throw new Error(
        `warm-up: ${warm.non2xx} non-2xx answers and ${warm.errors} errors (status codes ${JSON.stringify(warm.statusCodes)})`,
      );
    log(`${name}: closed loop ${settings.durationS}s with ${settings.connections} connections`);
    const waits = srv.sampleWaits?.();
    const b0 = await auditBatches(srv.origin);
    const c0 = cpuSnapshot(srv.child.pid, withPostgres);
    const closedRun = await runClosedLoop({ ...closedOpts, durationS: settings.durationS });
    const c1 = cpuSnapshot(srv.child.pid, withPostgres);
    result.closedBatches = batchesBetween(b0, await auditBatches(srv.origin));
    result.closedWaits = await waits?.stop();
    for (const r of [warm, closedRun]) {
      answered += r.ok;
      // Abandoned in flight at the end of the duration, or failed (timeout, reset): never answered.
      unanswered += r.sent - r.ok - r.non2xx;
      for (const id of r.ids) ids.push(id);
    }
    const { ids: _closedIds, ...closed } = closedRun;
    result.closed = closed;
    result.closedCpu = cpuUse(c0, c1, closed.ok + closed.non2xx, srv.child.pid);
    const afterClosed = memoryOf(srv.child.pid);

    log(
      `${name}: paced ${settings.rate} req/s, warm-up ${settings.pacedWarmupS}s then ${settings.durationS}s`,
    );
    const pacedOpts = {
      origin: srv.origin,
      path: PATH,
      headers,
      body,
      rate: settings.rate,
      connections: settings.pacedConnections,
      collectIds: true,
    };
    const pacedWarm = await runPaced({ ...pacedOpts, durationS: settings.pacedWarmupS });
    const b1 = await auditBatches(srv.origin);
    const p0 = cpuSnapshot(srv.child.pid, withPostgres);
    const paced: PacedResult = await runPaced({ ...pacedOpts, durationS: settings.durationS });
    const p1 = cpuSnapshot(srv.child.pid, withPostgres);
    result.pacedBatches = batchesBetween(b1, await auditBatches(srv.origin));
    for (const r of [pacedWarm, paced]) {
      answered += r.ok;
      unanswered += r.errors;
      for (const id of r.ids) ids.push(id);
    }
    result.paced = paced;
    result.pacedCpu = cpuUse(p0, p1, paced.ok + paced.non2xx, srv.child.pid);
    result.warmupNon2xx = warm.non2xx + warm.errors + pacedWarm.non2xx + pacedWarm.errors;
    const afterPaced = memoryOf(srv.child.pid);
    result.memory = {
      beforeMiB: before.rssMiB,
      afterClosedMiB: afterClosed.rssMiB,
      afterPacedMiB: afterPaced.rssMiB,
      peakMiB: afterPaced.peakMiB,
    };

    // Audit batches linked again because a head moved (see evaluations.repo.ts), from /metrics.
    const metricsText = await fetch(`${srv.origin}/metrics`)
      .then((r) => r.text())
      .catch(() => '');
    const relinks = /^mica_audit_relinks_total (\d+)/m.exec(metricsText)?.[1];
    log(`${name}: audit relinks ${relinks ?? 'n/a'}`);
    log(`${name}: stopping (SIGTERM)`);
    const exit = await stop(srv.child);
    result.exit = String(exit);
    if (srv.count) {
      const stored = await srv.count(ids);
      result.audit = {
        answered2xx: answered,
        unanswered,
        evaluations: stored.evaluations,
        transactions: stored.transactions,
        idsChecked: ids.length,
        idsFound: stored.idsFound,
        // Every answer is stored (by id); of the requests abandoned in flight, some or all were processed.
        ok:
          ids.length === answered &&
          stored.idsFound === ids.length &&
          stored.evaluations >= answered &&
          stored.evaluations <= answered + unanswered &&
          stored.transactions === stored.evaluations,
      };
    }
    log(
      `${name}: done (${closed.reqPerSec.toFixed(0)} req/s closed loop, paced p99 ${paced.latency.p99.toFixed(2)} ms)`,
    );
  } catch (e) {
    result.error = e instanceof Error ? e.message : String(e);
    log(`${name}: FAILED: ${result.error}`);
    const tail = server?.child.output().trim().slice(-3000);
    if (tail) log(`${name}: last output of the server:\n${tail}`);
  } finally {
    if (server) {
      await stop(server.child, 5000);
      server.cleanup?.();
    }
  }
  return result;
}

async function main(): Promise<number> {
  const started = Date.now();
  // Profiles are kept after the run (not a tempDir): their path is printed at the end.
  const profileDir = settings.cpuProfile ? mkdtempSync(join(tmpdir(), 'mica-bench-prof-')) : undefined;
  const results: TargetResult[] = [];
  results.push(await measure('baseline', startBaseline));
  let pgVersion: string | undefined;
  for (const target of settings.targets) {
    if (target === 'embedded') results.push(await measure('embedded', () => startEmbedded(profileDir)));
    if (target === 'postgres') {
      if (!(await postgresReachable())) {
        log(`postgres: not reachable at ${ADMIN_URL.replace(/:[^:@/]*@/, ':***@')}, skipped`);
        results.push({ name: 'postgres', skipped: `PostgreSQL not reachable (set BENCH_DATABASE_URL)` });
        continue;
      }
      pgVersion = await postgresVersion(ADMIN_URL).catch(() => undefined);
      results.push(await measure('postgres', () => startPostgres(profileDir)));
    }
  }
  const file = join(ROOT, 'bench', 'RESULTS.md');
  const machine = { ...machineInfo(pgVersion), loadAvgEnd: loadAverage() };
  const failures = writeResults(file, { settings, machine, results });
  log(`wrote ${file} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (profileDir) log(`CPU profiles of the real servers: ${profileDir}`);
  for (const f of failures) log(`FAIL: ${f}`);
  return failures.length === 0 ? 0 : 1;
}

runMain('bench', main);
