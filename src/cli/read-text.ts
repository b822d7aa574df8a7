import { readFileSync } from 'node:fs';

/**
 * A file's bytes as UTF-8 text, or undefined when they are not text: a NUL byte, or a sequence no
 * UTF-8 encoder writes (a Latin-1 export, say). Read leniently, such bytes went on as U+FFFD, which
 * an import stored in place of the letters, and as NULs, which the stores refuse each in its own way.
 */
export function readUtf8(path: string): string | undefined {
  const bytes = readFileSync(path);
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
