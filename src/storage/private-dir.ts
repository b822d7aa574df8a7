import { chmodSync, mkdirSync, statSync } from 'node:fs';

/**
 * Creates a directory only its owner may enter (0700). The embedded engine writes its files (WAL
 * included: audit rows and sealed secrets) readable and writable by anyone, so its own directory
 * (`close: true`) is also closed when found open to others; a directory the operator chose
 * (MICA_DATA_DIR, maybe shared on purpose) keeps the mode it has. A directory this process does not
 * own keeps its mode too (chmod is refused there; the owner decides).
 */
export function ensurePrivateDir(dir: string, opts: { close?: boolean } = {}): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!opts.close || (statSync(dir).mode & 0o077) === 0) return;
  try {
    chmodSync(dir, 0o700);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') throw e;
  }
}
