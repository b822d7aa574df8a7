import { readFileSync } from 'node:fs';
import { SHARED_DATA, sdnFiles } from './addresses.ts';
import { loadAverage } from './cpu.ts';
import {
  f,
  int,
  logger,
  measureOn,
  measureTargets,
  num,
  runMain,
  sectionOpening,
  startRealServer,
  type TargetName,
  writeBenchSection,
} from './harness.ts';
import { percentiles } from './paced.ts';

/**
 * What a sanctions-list import costs the requests a server is answering meanwhile (issue #3).
 * `npm run bench:list-import`. A client asks `GET /healthz` back to back on one connection and
 * times each answer, first with the server idle, then during each import through the operator
 * API (what the CLI does while a server runs): the longest answer is the longest time the
 * server's event loop was held by the import.
 */

const log = logger('list-import');
const settings = { rounds: Math.round(num('BENCH_IMPORT_ROUNDS', 3)) };
const UN_XML = `${SHARED_DATA}/un_sanctions/UN_consolidated.xml`;

interface Phase {
  what: string;
  wallMs: number;
  pings: number[];
}

/** Runs `work` while pinging; the pings' latencies, ms. */
async function duringPings(origin: string, what: string, work: () => Promise<unknown>): Promise<Phase> {
  let stop = false;
  const pings: number[] = [];
  const pinger = (async () => {
    while (!stop) {
      const t = performance.now();
      const res = await fetch(`${origin}/healthz`);
      await res.arrayBuffer();
      pings.push(performance.now() - t);
    }
  })();
  const t = performance.now();
  await work();
  const wallMs = performance.now() - t;
  stop = true;
  await pinger;
  return { what, wallMs, pings };
}

interface TargetResult {
  target: TargetName;
  phases: Phase[];
  error?: string;
}

async function measure(target: TargetName): Promise<TargetResult> {
  const result: TargetResult = { target, phases: [] };
  const { phases } = result;
  await measureOn(
    startRealServer(target, { log }),
    result,
    async (s) => {
      const ofac = { source: 'ofac', files: sdnFiles(), published_at: '2021-07-07' };
      const un = {
        source: 'un',
        files: [{ name: 'UN_consolidated.xml', content: readFileSync(UN_XML, 'utf8') }],
      };
      phases.push(await duringPings(s.origin, 'idle (1 s)', () => new Promise((r) => setTimeout(r, 1000))));
      for (let k = 0; k < settings.rounds; k++) {
        phases.push(await duringPings(s.origin, 'OFAC 2021 import', () => s.command('lists.import', ofac)));
        phases.push(await duringPings(s.origin, 'UN import', () => s.command('lists.import', un)));
        log(`${target}: round ${k + 1} done`);
      }
    },
    { log, label: target },
  );
  return result;
}

async function main(): Promise<number> {
  const loadStart = loadAverage();
  const { results, pg } = await measureTargets(log, measure);
  const lines = [
    ...sectionOpening('Sanctions-list imports while serving (issue #3)', 'bench:list-import', loadStart, pg),
    `- A fresh real server per store. One client asks \`GET /healthz\` back to back on one keep-alive connection and times each answer (request → last byte), first for 1 s with the server idle, then during each import: \`lists import\` through the operator API (what the CLI does while a server runs) of the 2021 OFAC SDN set (${sdnFiles().length} files, 3.5 MB) and of the UN consolidated XML (2 MB), ${settings.rounds} rounds. Each import parses, replaces the list in one transaction, audits, and rebuilds the held indexes. The longest answer during an import is the longest time the import held the server's event loop.`,
    '',
    '### Results',
    '',
    '| Target | Phase | wall ms | answers | p50 / p99 / max ms |',
    '|---|---|---|---|---|',
  ];
  for (const r of results) {
    if (r.error) lines.push(`| ${r.target} | failed: ${r.error} | | | |`);
    for (const p of r.phases) {
      const q = percentiles(p.pings);
      lines.push(
        `| ${r.target} | ${p.what} | ${f(p.wallMs, 0)} | ${int(p.pings.length)} | ${f(q.p50, 2)} / ${f(q.p99, 2)} / ${f(q.max, 1)} |`,
      );
    }
  }
  log(`wrote ${writeBenchSection('list-import', lines)}`);
  return 0;
}

runMain('bench:list-import', main);
