import assert from 'node:assert/strict';
import { parseOfacCsv, parseUnXml } from '../../../src/domain/screening/lists/index.ts';
import { buildNameIndex } from '../../../src/domain/screening/name-match.ts';
import { fixtureBytes, fixtureText } from './fixtures.ts';

// Real lists: OFAC SDN snapshot 2021-07-07 (ofac_sdn/bench_2021) and the UN consolidated list of
// 2026-02-27 (un_sanctions), both described in test/fixtures/screening/SOURCE.md.
export const ofac = parseOfacCsv({
  sdn: fixtureBytes('ofac_sdn/bench_2021/sdn.csv'),
  alt: fixtureText('ofac_sdn/bench_2021/alt.csv'),
});
export const un = parseUnXml(fixtureBytes('un_sanctions/UN_consolidated.xml'));
/** The name index of both, as the service builds it. */
export const index = buildNameIndex([ofac, un]);

/** The entries a name search finds, as `<list>:<entry id>`. */
export const hits = (name: string) => index.search(name).map((m) => `${m.list}:${m.entry_id}`);
/** Asserts that a name search finds the entry. */
export const finds = (name: string, entry: string) =>
  assert.ok(hits(name).includes(entry), `${name}: ${hits(name)}`);
