// Shared by the travel-rule and cache integration tests: sample bodies and the test directory.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TestApp } from './harness.ts';

export const BTC = '14HmBSwec8XrcWge9Zi1ZngNia64u3Wd2v';
export const BTC_2 = '14WU745djqecaJ1gmtWQGeMCFim1W5MNp3';
export const ETH = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
/** GLEIF's own LEI, listed in casp_directory.csv. */
export const GLEIF_LEI = '506700GE1G29325QX363';
/** A valid LEI that casp_directory.csv does not list. */
export const UNLISTED_LEI = '549300NRE2M9GQ3DTH08';

export const fixturePath = (name: string) =>
  new URL(`../fixtures/travel-rule/${name}`, import.meta.url).pathname;

export const CASP_CSV = readFileSync(fixturePath('casp_directory.csv'), 'utf8');

/**
 * A client id unique to this run: a Redis shared between runs (and engineers) keeps cache entries
 * of earlier runs, whose fingerprints would otherwise match this run's fresh database.
 */
export const uniqueClientId = (base: string) => `${base}-${randomBytes(4).toString('hex')}`;

/** A complete spec-form request whose counterparty is in the test directory. */
export function completeBody(transferId: string, overrides: Record<string, unknown> = {}) {
  return {
    transfer_id: transferId,
    direction: 'outbound',
    amount_eur: 2500,
    originator: {
      name: 'Jane Howard',
      wallet_address: BTC,
      geographic_address: '28 Greystone Street, Collierville, TN 38017, US',
      national_id: '112502920',
    },
    beneficiary: {
      name: 'Lawrence Clark',
      wallet_address: BTC_2,
      casp_name: 'global legal entity IDENTIFIER foundation',
      casp_lei: GLEIF_LEI,
    },
    ...overrides,
  };
}

/** Loads casp_directory.csv through the operator command, as the CLI would. */
export async function importTestDirectory(t: TestApp) {
  return t.deps.commands('casps.import', { csv: CASP_CSV, source: 'casp_directory.csv' }, 'test');
}
