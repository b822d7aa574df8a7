import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/** The pid a lock file names, or undefined when it names none. */
function ownerOf(content: string): number | undefined {
  return /^[1-9][0-9]*$/.test(content) ? Number(content) : undefined;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * The embedded store may be opened by one process only: a lock file holds the owner's pid.
 * A lock left by a dead process (or naming none) is taken over.
 *
 * The file appears with its pid already in it (written aside, then hard-linked into place, which
 * fails if a lock exists): created empty and then written, a process starting at the same instant
 * read it empty, took it for a stale lock, removed it and took its own, and both opened the store.
 * A stale lock is moved aside before it is removed, and removed only if what was moved is still the
 * stale lock: two processes taking over the same stale lock cannot remove each other's new one.
 */
export function acquireStoreLock(dataDir: string): { release: () => void } {
  const dir = resolve(dataDir);
  ensurePrivateDir(dir);
  const path = join(dir, 'store.lock');
  const mine = String(process.pid);
  const aside = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(aside, mine, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(aside, path);
        return {
          release: () => {
            try {
              if (readFileSync(path, 'utf8') === mine) rmSync(path);
            } catch {
              /* already gone */
            }
          },
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const seen = readOrUndefined(path);
      if (seen === undefined) continue;
      const owner = ownerOf(seen);
      if (owner !== undefined && owner !== process.pid && alive(owner))
        throw new Error(`the embedded store in ${dir} is in use by process ${owner}`);
      const moved = `${aside}.stale`;
      try {
        renameSync(path, moved);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      const taken = readOrUndefined(moved);
      if (taken !== undefined && taken !== seen) {
        // Another process's new lock was moved: put it back (unless a third has locked meanwhile).
        try {
          linkSync(moved, path);
        } catch {
          /* a newer lock holds */
        }
      }
      rmSync(moved, { force: true });
    }
  } finally {
    rmSync(aside, { force: true });
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
