import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Where the CPU time goes during a phase: machine, server process, PostgreSQL processes, load generator. */

const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export interface CpuSnapshot {
  at: bigint;
  machineBusy: number;
  machineTotal: number;
  /** CPU seconds (user + system) consumed so far. */
  server: number;
  /** CPU seconds of each thread of the server process, by thread id (the main thread's id is the pid). */
  serverThreads: Map<string, number>;
  postgres: number;
  loader: number;
}

export interface CpuUse {
  /** Busy share of all cores, %. */
  machineBusyPct: number;
  /** Cores used on average (1.0 = one core fully busy). */
  serverCores: number;
  /** Of which the main thread (the event loop serving HTTP). */
  mainThreadCores: number;
  /** The busiest other thread of the server (e.g. the embedded database's worker, or GC helpers). */
  otherThreadCores: number;
  postgresCores: number;
  loaderCores: number;
  /** CPU milliseconds per answered request. */
  serverMsPerReq: number;
  postgresMsPerReq: number;
  loaderMsPerReq: number;
}

function procSeconds(pid: number | string): { comm: string; s: number; children: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // Fields after the comm start at field 3 (state); utime and stime are fields 14 and 15, and
    // cutime and cstime (of the children it has reaped) 16 and 17.
    return {
      comm,
      s: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S,
      children: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_S,
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of every process named `postgres` (every backend of the local server, whoever uses it),
 * with those of the backends that have exited: the postmaster has reaped them, so their time is in
 * its children's time. Without it a backend that ends during a measurement (a pool closing an idle
 * connection) took its time out of the sum, which could even go negative.
 */
function postgresSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const p = procSeconds(entry);
    if (p?.comm === 'postgres') total += p.s + p.children;
  }
  return total;
}

function threadSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const t = procSeconds(`${pid}/task/${tid}`);
      if (t) out.set(tid, t.s);
    }
  } catch {
    /* process gone */
  }
  return out;
}

export function cpuSnapshot(serverPid: number, withPostgres: boolean): CpuSnapshot {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  const self = process.cpuUsage();
  return {
    at: process.hrtime.bigint(),
    machineBusy: total - idle,
    machineTotal: total,
    server: procSeconds(serverPid)?.s ?? NaN,
    serverThreads: threadSeconds(serverPid),
    postgres: withPostgres ? postgresSeconds() : 0,
    loader: (self.user + self.system) / 1e6,
  };
}

export function cpuUse(a: CpuSnapshot, b: CpuSnapshot, requests: number, serverPid: number): CpuUse {
  const wall = Number(b.at - a.at) / 1e9;
  const threadCores = (tid: string) =>
    ((b.serverThreads.get(tid) ?? 0) - (a.serverThreads.get(tid) ?? 0)) / wall;
  const main = String(serverPid);
  const others = [...b.serverThreads.keys()].filter((t) => t !== main).map(threadCores);
  const per = (s: number) => (requests > 0 ? (s * 1000) / requests : NaN);
  return {
    machineBusyPct: ((b.machineBusy - a.machineBusy) / Math.max(1, b.machineTotal - a.machineTotal)) * 100,
    serverCores: (b.server - a.server) / wall,
    mainThreadCores: threadCores(main),
    otherThreadCores: Math.max(0, ...others),
    postgresCores: (b.postgres - a.postgres) / wall,
    loaderCores: (b.loader - a.loader) / wall,
    serverMsPerReq: per(b.server - a.server),
    postgresMsPerReq: per(b.postgres - a.postgres),
    loaderMsPerReq: per(b.loader - a.loader),
  };
}

/** 1-minute load average: other work on the machine shows up here. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}
