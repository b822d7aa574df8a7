import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readListFiles } from '../../src/cli/lists.ts';
import type { TestApp } from './harness.ts';

/** Absolute path of a screening fixture. */
export const fixturePath = (rel: string) =>
  fileURLToPath(new URL(`../fixtures/screening/${rel}`, import.meta.url));

/** A client id unique to this run: Redis (cache, breakers) outlives a test run. */
export const uniqueClient = (base: string) => `${base}-${randomBytes(4).toString('hex')}`;

/**
 * Imports a list through the operator command, reading files the way the CLI does; `allowOlder`
 * for a deliberate roll-back to an older publication.
 */
export async function importList(
  t: TestApp,
  source: 'ofac' | 'eu' | 'un',
  path: string,
  publishedAt?: string,
  allowOlder?: boolean,
) {
  const { files } = readListFiles(source, path);
  return (await t.deps.commands(
    'lists.import',
    {
      source,
      files,
      ...(publishedAt ? { published_at: publishedAt } : {}),
      ...(allowOlder ? { allow_older: true } : {}),
    },
    'test',
  )) as {
    source: string;
    version: number;
    published_at: string | null;
    entries: number;
    addresses: number;
    screenable_addresses: number;
    warnings: string[];
    warning_count: number;
    allow_older: boolean;
    rolled_back_from: string | null;
  };
}

export interface Screening {
  risk_profile: {
    wallet_address: string;
    blockchain: string;
    risk_score: number;
    risk_category: string;
    sanctioned_exposure: number;
    darknet_exposure: number;
    mixer_exposure: number;
    last_activity_at: string | null;
    sanctions_matches: Array<{
      list: string;
      entry_id: string;
      name: string;
      programs: string[];
      matched: string;
      score: number;
    }>;
  };
  rule_evaluation: {
    rules_triggered: number;
    should_alert: boolean;
    should_block: boolean;
    actions: string[];
    triggered_rules: Array<{ rule_id: string; result: string }>;
  };
}

/** GET /api/mica/wallet-screening. */
export function screenGet(t: TestApp, auth: Record<string, string>, address: string, chain: string) {
  const q = new URLSearchParams({ wallet_address: address, blockchain: chain });
  return t.app.inject({ method: 'GET', url: `/api/mica/wallet-screening?${q}`, headers: auth });
}

/** POST /api/mica/wallet-screening. */
export function screenPost(t: TestApp, auth: Record<string, string>, body: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: '/api/mica/wallet-screening',
    headers: { ...auth, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

/** One published snapshot folder as ticker → addresses. */
export function snapshot(dir: string): Map<string, string[]> {
  const root = fixturePath(`ofac_sanctioned_addresses/${dir}`);
  const out = new Map<string, string[]>();
  for (const f of readdirSync(root)) {
    const m = /^sanctioned_addresses_([A-Z]+)\.txt$/.exec(f);
    if (!m) continue;
    const lines = readFileSync(join(root, f), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    out.set(m[1]!, lines);
  }
  return out;
}

/**
 * A small OFAC legacy CSV set (a directory with sdn.csv) built from an address snapshot: one
 * entry per address, remarks in OFAC's wording, CRLF and the trailing 0x1A as in the real files.
 */
export function ofacCsvFromSnapshot(dir: string): string {
  let ent = 90_000;
  let sdn = '';
  for (const [ticker, addresses] of snapshot(dir)) {
    for (const address of addresses) {
      ent++;
      sdn += `${ent},"SNAPSHOT HOLDER ${ent}",-0- ,"CYBER2",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"Digital Currency Address - ${ticker} ${address}."\r\n`;
    }
  }
  const out = mkdtempSync(join(tmpdir(), 'mica-ofac-'));
  writeFileSync(join(out, 'sdn.csv'), `${sdn}\x1a`);
  return out;
}
