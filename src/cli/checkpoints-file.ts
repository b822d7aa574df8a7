import { readFileSync } from 'node:fs';
import { cliPath } from './paths.ts';

/**
 * The checkpoints kept outside the database, as `audit checkpoints` printed them (`{checkpoints:
 * [...]}`) or as a bare array; checked in full by the command itself.
 */
export function readCheckpointsFile(file: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(cliPath(file), 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON: give the output of "audit checkpoints"`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { checkpoints?: unknown } | null)?.checkpoints;
  // An empty list confirms nothing: accepted, the verification would read as if the outside copy
  // had been checked.
  if (!Array.isArray(list) || list.length === 0)
    throw new Error(`${file} holds no checkpoints: give the output of "audit checkpoints"`);
  return list;
}
