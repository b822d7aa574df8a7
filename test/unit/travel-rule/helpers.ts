// Shared sample values for the travel-rule tests (all verified valid for their chain / ISO 17442).
import { readFileSync } from 'node:fs';

export const BTC = '14HmBSwec8XrcWge9Zi1ZngNia64u3Wd2v';
export const BTC_2 = '14WU745djqecaJ1gmtWQGeMCFim1W5MNp3';
/** The EIP-55 example address. */
export const ETH = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const SOL = '7vVcBLQwT1rmjiTXhhvmHKfiaCda2giGMeKchc2jwmBN';
/** GLEIF's own LEI. */
export const LEI = '506700GE1G29325QX363';

/** Reads a JSON fixture under test/fixtures/travel-rule/. */
export function fixture<T = unknown>(name: string): T {
  return JSON.parse(
    readFileSync(new URL(`../../fixtures/travel-rule/${name}`, import.meta.url), 'utf8'),
  ) as T;
}

/** A deep copy of `doc` with the value at a dotted path (numeric parts index arrays) set, or deleted when undefined. */
export function edited<T>(doc: T, path: string, value?: unknown): T {
  const copy = structuredClone(doc);
  const keys = path.split('.');
  let node = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = keys[keys.length - 1] ?? '';
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}
