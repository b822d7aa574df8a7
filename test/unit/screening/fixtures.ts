import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

const ROOT = new URL('../../fixtures/screening/', import.meta.url);

/** Reads a screening fixture as UTF-8 text. */
export function fixtureText(path: string): string {
  return readFileSync(new URL(path, ROOT), 'utf8');
}

/** Reads a screening fixture as bytes (loaders accept both). */
export function fixtureBytes(path: string): Uint8Array {
  return readFileSync(new URL(path, ROOT));
}

/** Parses a JSON fixture. */
export function fixtureJson<T = unknown>(path: string): T {
  return JSON.parse(fixtureText(path)) as T;
}

/** File names in a fixture folder. */
export function fixtureDir(path: string): string[] {
  return readdirSync(new URL(path, ROOT)).sort();
}

/** One published ticker list of a snapshot folder: non-empty lines. */
export function snapshotList(dir: string, ticker: string): string[] {
  const file = `ofac_sanctioned_addresses/${dir}/sanctioned_addresses_${ticker}.txt`;
  return fixtureText(file)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export const SNAPSHOTS = ['0xB10C_lists_2024-09-27', 'chainsentry-ai_fork_lists_2025-06-20'] as const;

/** The derived extraction file: one row per (snapshot, ent_num, ticker, address). */
export function readExtraction(): Array<Record<string, string>> {
  return parse(fixtureText('ofac_sdn/sdn_digital_currency_addresses_extracted.csv'), {
    columns: true,
  }) as Array<Record<string, string>>;
}
