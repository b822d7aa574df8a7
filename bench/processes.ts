import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: every child runs from here, as `npm start` would. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A child process started by the bench, with its output kept for error messages. */
export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

const running = new Set<Child>();

/**
 * Node's flags for the service, read from `npm start` (package.json: `node <flags> --import tsx
 * src/main.ts`), so the benches run the server exactly as it is started (its semi-space size).
 */
export const SERVER_NODE_FLAGS: string[] = (() => {
  const start: string = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).scripts.start;
  // `exec node …`: the shell gives way to node, so signals sent to npm reach the server.
  const words = start
    .trim()
    .split(/\s+/)
    .filter((w, i) => !(i === 0 && w === 'exec'));
  const end = words.indexOf('--import');
  if (words[0] !== 'node' || end < 0) throw new Error(`npm start is not "node <flags> --import …": ${start}`);
  return words.slice(1, end);
})();

/** Starts the service (`src/main.ts`) with its flags, plus `nodeArgs` (e.g. a profiler's). */
export function startServerNode(name: string, env: Record<string, string>, nodeArgs: string[] = []): Child {
  return startNode(name, 'src/main.ts', env, [...SERVER_NODE_FLAGS, ...nodeArgs]);
}

/** Starts `node --import tsx <script>` from the repository root. */
export function startNode(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Child {
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (proc.pid === undefined) throw new Error(`${name}: could not start ${script}`);
  let out = '';
  const keep = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.length > 64_000) out = out.slice(-32_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const child: Child = {
    name,
    proc,
    pid: proc.pid,
    output: () => out,
    exited: new Promise((res) => {
      proc.on('exit', (code, signal) => {
        running.delete(child);
        res(code ?? signal ?? 'unknown');
      });
    }),
  };
  running.add(child);
  return child;
}

/** Runs a node script to completion and returns its stdout; rejects on a non-zero exit. */
export async function runNode(name: string, script: string, args: string[], env: Record<string, string>) {
  const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  proc.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const code = await new Promise<number | null>((res, rej) => {
    proc.on('error', rej);
    proc.on('exit', (c) => res(c));
  });
  if (code !== 0) throw new Error(`${name} exited with ${code}: ${stderr.trim() || stdout.trim()}`);
  return stdout;
}

/** Asks SIGTERM, waits up to `graceMs`, then SIGKILL. Returns how the process ended. */
export async function stop(child: Child, graceMs = 20_000): Promise<number | string> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return child.exited;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Kills every child still running, at once (used on error and at exit). */
export function killAll(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const c of running) {
    try {
      process.kill(c.pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Stops every child still running, politely first. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((c) => stop(c, 10_000)));
}

/** TCP ports on which the process listens, from /proc (its socket inodes matched in /proc/net/tcp*). */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        /* fd closed meanwhile */
      }
    }
  } catch {
    return [];
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex, st 0A is LISTEN, inode is the tenth field.
      if (f[3] === '0A' && f[9] && inodes.has(f[9])) ports.push(Number.parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/**
 * Waits until the child listens and returns its port. Children are started with PORT=0 and the port
 * is read back from /proc: picking a free port first and passing it down would race with other
 * processes on the machine (a test suite's server could take it in between, and the bench would
 * then load someone else's server).
 */
export async function waitListening(child: Child, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null)
      throw new Error(
        `${child.name} exited (${child.proc.exitCode ?? child.proc.signalCode}) before it listened:\n${child.output().slice(-4000)}`,
      );
    const ports = listeningPorts(child.pid);
    if (ports.length > 0) return ports[0]!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name} did not listen within ${timeoutMs} ms:\n${child.output().slice(-4000)}`);
}

/** Polls GET /healthz until it answers 200; fails early if the child exits. */
export async function waitHealthy(child: Child, origin: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited)
      throw new Error(`${child.name} exited before it was healthy:\n${child.output().slice(-4000)}`);
    try {
      const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name} was not healthy within ${timeoutMs} ms:\n${child.output().slice(-4000)}`);
}

/** Waits until the child's output matches `re`; returns the first capture group (or the match). */
export async function waitForOutput(child: Child, re: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const m = re.exec(child.output());
    if (m) return m[1] ?? m[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `${child.name}: no line matching ${re} within ${timeoutMs} ms:\n${child.output().slice(-4000)}`,
  );
}

/** Resident memory of a process, from /proc/<pid>/status: current (VmRSS) and peak (VmHWM), in MiB. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
}
