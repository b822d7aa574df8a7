import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { parse } from 'csv-parse/sync';
import { validateAddress } from '../src/domain/screening/index.ts';

/** Wallet addresses for the screening and travel-rule benchmarks: fresh valid ones, and listed ones. */

const base58check = createBase58check(sha256);

/** A fresh, valid, unlisted EVM address (lower-case hex: no checksum casing to get wrong). */
export function freshEvm(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}

/** A fresh, valid mainnet P2PKH Bitcoin address (version 0x00 + 20 random bytes, base58check). */
export function freshBitcoin(): string {
  return base58check.encode(Uint8Array.from([0x00, ...randomBytes(20)]));
}

/** A fresh address: 60 % EVM (ethereum), 40 % Bitcoin, as a request's query fields. */
export function freshWallet(): { address: string; chain: 'ethereum' | 'bitcoin' } {
  return Math.random() < 0.6
    ? { address: freshEvm(), chain: 'ethereum' }
    : { address: freshBitcoin(), chain: 'bitcoin' };
}

export const SHARED_DATA = process.env.MICA_SHARED_DATA || '/work/shared/data';
/** The complete mid-2021 OFAC SDN snapshot (sdn.csv, add.csv, alt.csv, sdn_comments.csv). */
export const SDN_2021_DIR = `${SHARED_DATA}/ofac_sdn/bench_2021`;

/** The OFAC CSV files of the 2021 snapshot, as the CLI reads them. */
export function sdnFiles(dir = SDN_2021_DIR): Array<{ name: string; content: string }> {
  return ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv'].map((name) => ({
    name,
    content: readFileSync(`${dir}/${name}`, 'utf8'),
  }));
}

/**
 * The XBT and ETH addresses of the 2021 snapshot (joined across the remarks cut), valid for their
 * chain: each must come out sanctioned once that snapshot is imported.
 */
export function listedWallets(): Array<{ address: string; chain: 'ethereum' | 'bitcoin' }> {
  const rows = parse(readFileSync(`${SHARED_DATA}/ofac_sdn/sdn_digital_currency_addresses_extracted.csv`), {
    columns: true,
  }) as Array<{ snapshot: string; ticker: string; address: string }>;
  const out = new Map<string, { address: string; chain: 'ethereum' | 'bitcoin' }>();
  for (const r of rows) {
    if (r.snapshot !== 'bench_2021') continue;
    const chain = r.ticker === 'XBT' ? 'bitcoin' : r.ticker === 'ETH' ? 'ethereum' : undefined;
    if (chain && validateAddress(chain, r.address).ok) out.set(r.address, { address: r.address, chain });
  }
  return [...out.values()];
}
