import { Pool } from 'undici';
import { runClosedLoop } from './closed-loop.ts';
import { cpuSnapshot, cpuUse, loadAverage } from './cpu.ts';
import {
  f,
  int,
  logger,
  measureOn,
  measureTargets,
  num,
  type RealServer,
  runMain,
  sectionOpening,
  startBaseline,
  startRealServer,
  type TargetName,
  verdict,
  writeBenchSection,
} from './harness.ts';
import { transactionBody } from './payload.ts';
import { memoryOf } from './processes.ts';

/**
 * Streaming CSV export of the audit trail (issue #6): rows per second and the server's RSS over
 * the export. `npm run bench:export`.
 */

const log = logger('export');
const settings = {
  evaluations: Math.round(num('BENCH_EXPORT_EVALUATIONS', 60_000)),
  fillConnections: 128,
};
const GOAL_ROWS_PER_S = 100_000;
/**
 * "Flat": the export holds a bounded amount (pages of 500 evaluations, up to 16 chunks queued in
 * the stream, heap slack), never the whole result; growth must stay under this bound.
 */
const FLAT_MIB = 128;
const PATH = '/api/mica/audit/evaluations?format=csv';

interface Export {
  rows: number;
  bytes: number;
  seconds: number;
  firstByteMs: number;
  rowsPerS: number;
  rss: { before: number; min: number; max: number; end: number; samples: number };
  cpuMsPer1kRows: { server: number; postgres: number; loader: number };
  evaluationIds: number;
}

interface TargetResult {
  name: 'baseline' | TargetName;
  loadAvg: number;
  error?: string;
  filled?: { evaluations: number; seconds: number };
  exports?: Export[];
  integrity?: { storedRows: number; storedEvaluations: number; ok: boolean };
}

/**
 * Streams one export, counting rows (CRLF-terminated lines after the header) and distinct
 * evaluation ids, and sampling the server's RSS every 50 ms.
 */
async function exportOnce(
  pid: number,
  origin: string,
  path: string,
  headers: Record<string, string>,
  pg: boolean,
): Promise<Export> {
  const pool = new Pool(origin, { connections: 1, bodyTimeout: 600_000, headersTimeout: 60_000 });
  const rssBefore = memoryOf(pid).rssMiB;
  const rss = { before: rssBefore, min: rssBefore, max: rssBefore, end: rssBefore, samples: 0 };
  const sampler = setInterval(() => {
    const m = memoryOf(pid).rssMiB;
    rss.min = Math.min(rss.min, m);
    rss.max = Math.max(rss.max, m);
    rss.samples++;
  }, 50);
  const c0 = cpuSnapshot(pid, pg);
  const t0 = performance.now();
  let firstByteMs = Number.NaN;
  let lines = 0;
  let bytes = 0;
  const ids = new Set<string>();
  let tail = '';
  try {
    const res = await pool.request({ path, method: 'GET', headers });
    if (res.statusCode !== 200)
      throw new Error(`export answered ${res.statusCode}: ${await res.body.text()}`);
    for await (const chunk of res.body) {
      if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
      const text = tail + (chunk as Buffer).toString('utf8');
      bytes += (chunk as Buffer).length;
      const parts = text.split('\r\n');
      tail = parts.pop()!;
      for (const line of parts) {
        lines++;
        // The evaluation id is the second column (a UUID, never quoted).
        const c = line.indexOf(',');
        if (c > 0 && lines > 1) ids.add(line.slice(c + 1, c + 37));
      }
    }
  } finally {
    clearInterval(sampler);
    await pool.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  const c1 = cpuSnapshot(pid, pg);
  const rows = lines - 1;
  const cpu = cpuUse(c0, c1, rows / 1000, pid);
  rss.end = memoryOf(pid).rssMiB;
  return {
    rows,
    bytes,
    seconds,
    firstByteMs,
    rowsPerS: rows / seconds,
    rss,
    cpuMsPer1kRows: {
      server: cpu.serverMsPerReq,
      postgres: cpu.postgresMsPerReq,
      loader: cpu.loaderMsPerReq,
    },
    evaluationIds: ids.size,
  };
}

/** Fills the audit trail through the API: transaction evaluations in a closed loop until `n` are answered. */
async function fill(server: RealServer, n: number): Promise<number> {
  const headers = { ...server.headers, 'content-type': 'application/json' };
  let answered = 0;
  while (answered < n) {
    const r = await runClosedLoop({
      origin: server.origin,
      path: '/api/mica/evaluate',
      headers,
      body: () => transactionBody('bench'),
      connections: settings.fillConnections,
      durationS: 5,
    });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`fill: ${r.non2xx} non-2xx, ${r.errors} errors`);
    answered += r.ok;
    log(`${server.target}: filled ${int(answered)} evaluations`);
  }
  // Requests abandoned at the end of a closed loop may still be committing: wait until the audit
  // writer has committed at least every answered one and stopped moving, so both exports see it all.
  let last = -1;
  for (let i = 0; i < 60; i++) {
    const text = await (await fetch(`${server.origin}/metrics`, { headers: server.headers })).text();
    const committed = Number(/^mica_audit_batch_size_sum (\d+)/m.exec(text)?.[1] ?? Number.NaN);
    if (!(committed < answered) && committed === last) break;
    last = committed;
    await new Promise((r) => setTimeout(r, 500));
  }
  return answered;
}

async function measureReal(target: TargetName): Promise<TargetResult> {
  const result: TargetResult = { name: target, loadAvg: loadAverage() };
  await measureOn(
    startRealServer(target, { log }),
    result,
    async (server) => {
      const t = performance.now();
      const answered = await fill(server, settings.evaluations);
      result.filled = { evaluations: answered, seconds: (performance.now() - t) / 1000 };
      result.loadAvg = loadAverage();
      const exports: Export[] = [];
      result.exports = exports;
      for (let k = 0; k < 2; k++) {
        const e = await exportOnce(
          server.child.pid,
          server.origin,
          PATH,
          server.headers,
          target === 'postgres',
        );
        exports.push(e);
        log(
          `${target}: export ${k + 1}: ${int(e.rows)} rows in ${e.seconds.toFixed(2)} s = ${int(Math.round(e.rowsPerS))} rows/s, RSS ${e.rss.before.toFixed(0)} → max ${e.rss.max.toFixed(0)} MiB`,
        );
      }
      await server.stop();
      const [rowsOf] = await server.query([
        {
          text: `SELECT count(*)::int AS evaluations,
                      coalesce(sum(json_array_length(response->'results')), 0)::int AS rows
                 FROM evaluations WHERE client_id = 'bench'`,
        },
      ]);
      const row = rowsOf?.[0];
      const storedRows = Number(row!.rows);
      const storedEvaluations = Number(row!.evaluations);
      result.integrity = {
        storedRows,
        storedEvaluations,
        ok: exports.every((e) => e.rows === storedRows && e.evaluationIds === storedEvaluations),
      };
    },
    { log, label: target },
  );
  return result;
}

async function measureBaseline(rows: number): Promise<TargetResult> {
  const result: TargetResult = { name: 'baseline', loadAvg: loadAverage() };
  // A failed start of the baseline ends the benchmark: nothing could be compared.
  await measureOn(await startBaseline(), result, async (b) => {
    result.exports = [
      await exportOnce(b.child.pid, b.origin, `/api/mica/audit/evaluations?rows=${rows}`, {}, false),
    ];
  });
  return result;
}

function report(results: TargetResult[], loadStart: number, pg?: string): string[] {
  const out: string[] = [];
  const w = (...lines: string[]) => out.push(...(lines.length > 0 ? lines : ['']));
  w(...sectionOpening('Audit trail CSV export (issue #6)', 'bench:export', loadStart, pg));
  w(
    `- **Data**: the real server process on a fresh embedded store and on a freshly reset PostgreSQL database \`mica_bench_extra\`, filled through the API with ≥ ${int(settings.evaluations)} transaction evaluations (bench/payload.ts, autocannon closed loop, ${settings.fillConnections} connections); each evaluation is 8 audit rows of \`mica_rule_evaluations\` (one per rule evaluated).`,
  );
  w(
    "- **Export**: `GET /api/mica/audit/evaluations?format=csv` with the client's key, no filter: every row of the client, streamed (keyset pages). The client reads the body as it arrives, counts rows (CRLF lines after the header) and distinct evaluation ids. _rows/s_ = rows ÷ wall time from request to last byte. Run twice on the same data.",
  );
  w(
    `- **Memory**: VmRSS of the server process sampled every 50 ms during the export (/proc/<pid>/status): before, min, max, at the end. Flat: the growth stays under a fixed ${FLAT_MIB} MiB whatever the number of rows (compare with the size of the export; the export holds a page of 500 evaluations and up to 16 queued chunks).`,
  );
  w(
    '- **CPU**: user + system from /proc over the export, per 1,000 rows (server, PostgreSQL backends, the reading client).',
  );
  w(
    '- **Baseline**: bare Fastify (bench/baseline-server.ts) streaming the same number of CSV rows of the same width from memory, read by the same client: the ceiling of HTTP streaming on this machine.',
  );
  w(
    '- **Integrity**: after a graceful stop, the rows of the client counted in SQL (sum of the results of each stored evaluation) and its evaluations must equal the exported rows and distinct evaluation ids.',
  );
  w();
  w('### Targets');
  w();
  w('| Goal | Target | Measured | Verdict |');
  w('|---|---|---|---|');
  for (const r of results) {
    if (r.name === 'baseline') continue;
    if (!r.exports?.length) {
      w(`| ≥ 100,000 rows/s, flat memory | ${r.name} | failed: ${(r.error ?? '').slice(0, 200)} | MISS |`);
      continue;
    }
    const slow = Math.min(...r.exports.map((e) => e.rowsPerS));
    const growth = Math.max(...r.exports.map((e) => e.rss.max - e.rss.before));
    const mb = r.exports[0]!.bytes / 2 ** 20;
    w(
      `| ≥ 100,000 rows/s | ${r.name} | ${r.exports.map((e) => `${int(Math.round(e.rowsPerS))}`).join(' and ')} rows/s (${int(r.exports[0]!.rows)} rows) | ${verdict(slow >= GOAL_ROWS_PER_S)} |`,
    );
    w(
      `| flat memory (RSS growth < ${FLAT_MIB} MiB whatever the export size) | ${r.name} | RSS grew at most ${f(growth, 0)} MiB while streaming ${f(mb, 0)} MiB of CSV | ${verdict(growth < FLAT_MIB)} |`,
    );
    w(
      `| every row exported | ${r.name} | ${r.integrity ? `${int(r.exports[0]!.rows)} rows / ${int(r.exports[0]!.evaluationIds)} evaluations exported; stored ${int(r.integrity.storedRows)} / ${int(r.integrity.storedEvaluations)}` : 'n/a'} | ${verdict(r.integrity?.ok)} |`,
    );
  }
  w();
  w('### Exports');
  w();
  w(
    '| Target | run | rows | MiB | s | rows/s | first byte ms | RSS before / min / max / end MiB | CPU ms per 1,000 rows |',
  );
  w('|---|---|---|---|---|---|---|---|---|');
  for (const r of results)
    (r.exports ?? []).forEach((e, k) => {
      w(
        `| ${r.name} (load ${f(r.loadAvg, 2)}) | ${k + 1} | ${int(e.rows)} | ${f(e.bytes / 2 ** 20, 1)} | ${f(e.seconds, 2)} | ${int(Math.round(e.rowsPerS))} | ${f(e.firstByteMs, 1)} | ${f(e.rss.before, 0)} / ${f(e.rss.min, 0)} / ${f(e.rss.max, 0)} / ${f(e.rss.end, 0)} | server ${f(e.cpuMsPer1kRows.server, 2)}${r.name === 'postgres' ? ` + PostgreSQL ${f(e.cpuMsPer1kRows.postgres, 2)}` : ''} (client ${f(e.cpuMsPer1kRows.loader, 2)}) |`,
      );
    });
  return out;
}

async function main(): Promise<number> {
  const loadStart = loadAverage();
  const { results, pg } = await measureTargets(log, measureReal);
  const rows = Math.max(...results.map((r) => r.exports?.[0]?.rows ?? 0), settings.evaluations * 8);
  results.unshift(await measureBaseline(rows));
  log(`wrote ${writeBenchSection('export', report(results, loadStart, pg))}`);
  return results.some((r) => r.error || (r.name !== 'baseline' && !r.integrity?.ok)) ? 1 : 0;
}

runMain('bench:export', main);
