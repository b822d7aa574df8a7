import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'mica-test-'));
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  /** The demo key printed at first start, if any. */
  demoKey: (withinMs?: number) => Promise<string | undefined>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `src/main.ts` as a real process and waits until /healthz answers. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_BURST_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_DAY: '100000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${err || out}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not yet listening */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start: ${err || out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    stdout: () => out,
    /**
     * The demo key the first start prints, waited for: the server answers /healthz as soon as it
     * listens, and creates and prints the demo client just after (src/main.ts).
     */
    demoKey: async (withinMs = 10_000) => {
      const until = Date.now() + withinMs;
      for (;;) {
        const key = /(mica_(?:live|test)_[A-Za-z0-9_-]+)/.exec(out)?.[1];
        if (key || Date.now() > until || child.exitCode !== null) return key;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

/**
 * The first status `attempt` answers that is `expected`, trying for up to `withinMs` (else the
 * last one). For a change the CLI makes while a server runs: on the embedded store it goes
 * through the server, which applies it at once; on PostgreSQL the CLI writes to the database
 * itself, and the server may serve what it cached (keys, webhook secrets: AUTH_CACHE_MS, 1 s by
 * default) for up to that long.
 */
export async function statusOnceSeen(
  expected: number,
  attempt: () => Promise<number>,
  withinMs = 15_000,
): Promise<number> {
  const until = Date.now() + withinMs;
  for (;;) {
    const status = await attempt();
    if (status === expected || Date.now() > until) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
