import { chmodSync, mkdirSync, statSync } from 'node:fs';

/**
 * Creates a directory only its owner may enter (0700), or closes one found open to others: the
 * embedded engine writes its files (WAL included: audit rows and sealed secrets) readable and
 * writable by anyone, so the directory is what keeps other local users out. A directory this
 * process does not own keeps its mode (chmod is refused there; the owner decides).
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) === 0) return;
  try {
    chmodSync(dir, 0o700);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') throw e;
  }
}
