import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensurePrivateDir } from './private-dir.ts';

/** What a running server publishes for the CLI: where to reach it and its operator token. */
export interface ServerInfo {
  url: string;
  token: string;
  pid: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded store may be opened by one process only: a lock file holds the owner's pid.
 * A lock left by a dead process is taken over.
 */
export function acquireStoreLock(dataDir: string): { release: () => void } {
  const dir = resolve(dataDir);
  ensurePrivateDir(dir);
  const path = join(dir, 'store.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return {
        release: () => {
          try {
            if (readFileSync(path, 'utf8') === String(process.pid)) rmSync(path);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(readFileSync(path, 'utf8'));
      if (owner && owner !== process.pid && alive(owner))
        throw new Error(`the embedded store in ${dir} is in use by process ${owner}`);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock the embedded store in ${dir}`);
}

export function serverInfoPath(dataDir: string): string {
  return join(resolve(dataDir), 'server.json');
}

/** Writes server.json readable by the owner only (it carries the operator token). */
export function publishServerInfo(dataDir: string, info: ServerInfo): void {
  writeFileSync(serverInfoPath(dataDir), JSON.stringify(info), { mode: 0o600 });
}

export function readServerInfo(dataDir: string): ServerInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(serverInfoPath(dataDir), 'utf8')) as ServerInfo;
    return alive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

export function removeServerInfo(dataDir: string): void {
  rmSync(serverInfoPath(dataDir), { force: true });
}
