import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readListFiles } from '../../src/cli/lists.ts';
import { toChecksumAddress } from '../../src/domain/screening/index.ts';
import { createSanctionsListsService } from '../../src/services/sanctions-lists.service.ts';
import { createSanctionsListsRepo } from '../../src/storage/sanctions-lists.repo.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';
import {
  fixturePath,
  importList,
  ofacCsvFromSnapshot,
  type Screening,
  screenGet,
  screenPost,
  snapshot,
  uniqueClient,
} from '../helpers/screening.ts';
import { readExtraction } from '../unit/screening/fixtures.ts';

const EVM_CHAINS = ['ethereum', 'polygon', 'binance-smart-chain'] as const;

/** The three spellings of an EVM address a caller may send. */
const evmForms = (a: string) => [a.toLowerCase(), `0x${a.slice(2).toUpperCase()}`, toChecksumAddress(a)];

/**
 * tiny_2025's sdn.csv less SUEX (33151), whose Remarks are cut and continued in sdn_comments.csv:
 * alone, a file with no cut remarks (with them it is refused before any date is looked at).
 */
const sdnWithoutCutRemarks = () =>
  readFileSync(fixturePath('ofac_sdn/tiny_2025/sdn.csv'), 'utf8')
    .split('\r\n')
    .filter((line) => !line.startsWith('33151,'))
    .join('\r\n');

describe('wallet screening against the held sanctions lists (real OFAC and UN data)', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let client: string;
  before(async () => {
    t = await startTestApp();
    client = uniqueClient('lists');
    ({ auth } = await clientWithKey(t, client));
  });
  after(() => t.close());

  async function screen(address: string, chain: string): Promise<Screening> {
    const res = await screenGet(t, auth, address, chain);
    assert.equal(res.statusCode, 200, `${chain} ${address}: ${res.body}`);
    return res.json() as Screening;
  }

  function assertSanctioned(s: Screening, entryId: string, label: string) {
    const p = s.risk_profile;
    assert.equal(p.risk_category, 'critical', label);
    assert.equal(p.sanctioned_exposure, 1, label);
    assert.equal(p.risk_score, 100, label);
    assert.ok(
      p.sanctions_matches.some(
        (m) => m.list === 'ofac' && m.entry_id === entryId && m.matched === 'address' && m.score === 1,
      ),
      `${label}: ${JSON.stringify(p.sanctions_matches)}`,
    );
    assert.equal(s.rule_evaluation.should_block, true, label);
    assert.equal(s.rule_evaluation.actions[0], 'BLOCK', label);
    assert.ok(s.rule_evaluation.triggered_rules.some((r) => r.rule_id === 'MICA-WAL-001'));
  }

  it('a screening with no list held answers low / ALLOW', async () => {
    const s = await screen('12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz', 'bitcoin');
    assert.deepEqual(s, {
      risk_profile: {
        wallet_address: '12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz',
        blockchain: 'bitcoin',
        risk_score: 0,
        risk_category: 'low',
        sanctioned_exposure: 0,
        darknet_exposure: 0,
        mixer_exposure: 0,
        last_activity_at: null,
        sanctions_matches: [],
      },
      rule_evaluation: {
        rules_triggered: 0,
        should_alert: false,
        should_block: false,
        actions: ['ALLOW'],
        triggered_rules: [],
      },
    });
  });

  it('imports the complete 2021 OFAC CSV set (sdn, add, alt, sdn_comments) with its counts', async () => {
    const r = await importList(t, 'ofac', fixturePath('ofac_sdn/bench_2021'), '2021-07-07');
    assert.equal(r.source, 'ofac');
    assert.equal(r.published_at, '2021-07-07');
    assert.equal(r.entries, 8976);
    assert.equal(r.addresses, 97);
    // LIFSHITS's second ETH address has 39 hex digits: listed, never screened, and said so.
    assert.equal(r.screenable_addresses, 75);
    assert.equal(r.warning_count, 1);
    assert.match(
      r.warnings[0]!,
      /^ofac: entry 29702 \(LIFSHITS, Artem Mikhaylovich\) lists ETH address "0xa7e5d5a720f06526557c513402f2e6b5fa20b00", not a valid EVM address \(EVM address must be 0x followed by 40 hex digits\)/,
    );
    assert.equal(r.allow_older, false);
    assert.equal(r.rolled_back_from, null);
    const audit = await t.deps.operatorAudit.list({ subject: 'ofac' });
    const row = audit.at(-1)!;
    assert.equal(row.action, 'sanctions_list.imported');
    assert.equal(row.client_id, null);
    assert.deepEqual(
      {
        source: row.detail.source,
        published_at: row.detail.published_at,
        entries: row.detail.entries,
        addresses: row.detail.addresses,
      },
      { source: 'ofac', published_at: '2021-07-07', entries: 8976, addresses: 97 },
    );
    assert.deepEqual(row.detail.files, ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv']);
    // The warnings' text is kept with the count, and `lists status` shows it after the answer is gone.
    assert.equal(row.detail.warnings, 1);
    assert.deepEqual(row.detail.warning_messages, r.warnings);
    const status = (await t.deps.commands('lists.status', {}, 'test')) as {
      lists: Array<{ source: string; warning_count: number; warnings: string[] }>;
    };
    const held = status.lists.find((l) => l.source === 'ofac')!;
    assert.equal(held.warning_count, 1);
    assert.deepEqual(held.warnings, r.warnings);
  });

  it('every screenable address of the 2021 snapshot comes out sanctioned on its chain(s)', async () => {
    const rows = readExtraction().filter((r) => r.snapshot === 'bench_2021');
    let checked = 0;
    for (const r of rows) {
      const address = r.address!;
      if (/^0x[0-9a-f]{40}$/i.test(address)) {
        for (const chain of EVM_CHAINS)
          for (const form of evmForms(address)) {
            assertSanctioned(await screen(form, chain), r.ent_num!, `${chain} ${form}`);
            checked++;
          }
      } else if (r.ticker === 'XBT' || (r.ticker === 'USDT' && /^[13bc]/.test(address))) {
        assertSanctioned(await screen(address, 'bitcoin'), r.ent_num!, `bitcoin ${address}`);
        checked++;
      }
    }
    // 65 Bitcoin addresses, 10 EVM addresses × 3 chains × 3 spellings.
    assert.equal(checked, 65 + 10 * 9);
  });

  it('finds the addresses whose remarks were cut and continued in sdn_comments.csv', async () => {
    assertSanctioned(await screen('1GqChmWqGtsaLrGbHfgdrV5Nkvahtjjuxr', 'bitcoin'), '30518', 'cut XBT');
    const cutEth = '0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c';
    assertSanctioned(await screen(toChecksumAddress(cutEth), 'polygon'), '29703', 'cut ETH');
    // The truncated halves are not addresses of anyone.
    const half = await screenGet(t, auth, '1Gq', 'bitcoin');
    assert.equal(half.statusCode, 400);
  });

  it('refuses sdn.csv without its sdn_comments.csv, keeps the held list and audits the refusal', async () => {
    // In SECONDEYE's continuation (ent 30518): with sdn.csv alone it was dropped and screened ALLOW.
    const cut = '0x7Db418b5D567A4e0E8c59Ad71BE1FcE48f3E6107';
    assertSanctioned(await screen(cut, 'ethereum'), '30518', 'before');
    const before = (await t.deps.operatorAudit.list({ subject: 'ofac' })).at(-1)!;
    const dir = mkdtempSync(join(tmpdir(), 'mica-sdn-alone-'));
    copyFileSync(fixturePath('ofac_sdn/bench_2021/sdn.csv'), join(dir, 'sdn.csv'));
    await assert.rejects(
      importList(t, 'ofac', dir, '2021-07-07'),
      (e: Error & { code?: string; status?: number }) =>
        e.code === 'INVALID_REQUEST' &&
        e.status === 400 &&
        e.message.includes('30518 (SECONDEYE SOLUTION)') &&
        e.message.includes('continues them in sdn_comments.csv, which is missing'),
    );
    assertSanctioned(await screen(cut, 'ethereum'), '30518', 'held list kept');
    const row = (await t.deps.operatorAudit.list({ subject: 'ofac' })).at(-1)!;
    assert.ok(Number(row.id) > Number(before.id));
    assert.equal(row.action, 'sanctions_list.import_refused');
    assert.equal(row.actor, 'test');
    assert.equal(row.client_id, null);
    assert.deepEqual(row.detail.files, ['sdn.csv']);
    assert.equal(row.detail.source, 'ofac');
    assert.equal(row.detail.error, 'INVALID_REQUEST');
    assert.equal(row.detail.status, 400);
    assert.match(String(row.detail.reason), /^ofac: the Remarks of 5 entries fill sdn\.csv's field/);
    assert.equal(row.detail.published_at, '2021-07-07');
  });

  it('names the list entry of a hit and audits the screening as a wallet_screen evaluation', async () => {
    const s = await screen('0x901bb9583b24d97e995513c6778dc6888ab6870e', 'ethereum');
    assert.deepEqual(s.risk_profile.sanctions_matches, [
      {
        list: 'ofac',
        entry_id: '29702',
        name: 'LIFSHITS, Artem Mikhaylovich',
        programs: ['CYBER2', 'ELECTION-EO13848'],
        matched: 'address',
        score: 1,
      },
    ]);
    // WAL-001 blocks; the score of 100 also trips WAL-003 (an alert rule): BLOCK, then REVIEW.
    assert.deepEqual(s.rule_evaluation.actions, ['BLOCK', 'REVIEW']);
    assert.deepEqual(
      s.rule_evaluation.triggered_rules.map((r) => r.rule_id),
      ['MICA-WAL-001', 'MICA-WAL-003'],
    );
    const rows = await t.deps.db
      .selectFrom('evaluations')
      .select(['trigger_type', 'trigger_entity_type', 'trigger_entity_id', 'transaction_blocked', 'request'])
      .where('client_id', '=', client)
      .where('trigger_entity_id', '=', '0x901bb9583b24d97e995513c6778dc6888ab6870e')
      .execute();
    assert.ok(rows.length >= 1);
    const row = rows[0]!;
    assert.equal(row.trigger_type, 'wallet_screen');
    assert.equal(row.trigger_entity_type, 'wallet');
    assert.equal(row.transaction_blocked, true);
    const data = (row.request as { data: Record<string, unknown> }).data;
    assert.equal(data.associated_sanctions, true);
    assert.equal(data.wallet_risk_score, 100);
  });

  it('an address not on the list is clean; a Bitcoin address is not matched on an EVM chain', async () => {
    const clean = await screen('0x52908400098527886E0F7030069857D2E4169EE7', 'ethereum');
    assert.equal(clean.risk_profile.risk_category, 'low');
    assert.deepEqual(clean.rule_evaluation.actions, ['ALLOW']);
  });

  it('re-importing a newer list removes the delisted addresses (Tornado Cash, March 2025)', async () => {
    const older = snapshot('0xB10C_lists_2024-09-27');
    const newer = snapshot('chainsentry-ai_fork_lists_2025-06-20');
    const lower = (m: Map<string, string[]>) =>
      new Set(
        [...m.values()]
          .flat()
          .filter((a) => /^0x[0-9a-f]{40}$/i.test(a))
          .map((a) => a.toLowerCase()),
      );
    const olderEvm = lower(older);
    const newerEvm = lower(newer);
    const delisted = [...olderEvm].filter((a) => !newerEvm.has(a));
    assert.equal(delisted.length, 90);

    const v1 = await importList(t, 'ofac', ofacCsvFromSnapshot('0xB10C_lists_2024-09-27'), '2024-09-27');
    const tornado = '0x8589427373D6D84E98730D7795D8f6f8731FDA16';
    const before = await screen(tornado, 'ethereum');
    assert.equal(before.risk_profile.risk_category, 'critical');
    for (const a of delisted) assert.equal((await screen(a, 'ethereum')).risk_profile.sanctioned_exposure, 1);

    const v2 = await importList(
      t,
      'ofac',
      ofacCsvFromSnapshot('chainsentry-ai_fork_lists_2025-06-20'),
      '2025-06-20',
    );
    assert.equal(v2.version, v1.version + 1);
    // The cached BLOCK of the old list is not served: the list version is part of the entry.
    for (const a of delisted) {
      const s = await screen(a, 'ethereum');
      assert.equal(s.risk_profile.sanctioned_exposure, 0, a);
      assert.deepEqual(s.rule_evaluation.actions, ['ALLOW'], a);
    }
    for (const a of newer.get('XBT')!.slice(-5))
      assert.equal((await screen(a, 'bitcoin')).risk_profile.risk_category, 'critical', a);
    // Addresses kept in both snapshots still match.
    const kept = [...newerEvm].find((a) => olderEvm.has(a))!;
    assert.equal((await screen(kept, 'binance-smart-chain')).risk_profile.sanctioned_exposure, 1);
  });

  it('refuses a list published before the held one, unless the roll-back is asked for', async () => {
    // Held: the 2025-06-20 set imported above. The 2021 set would drop every address listed since.
    const since = snapshot('chainsentry-ai_fork_lists_2025-06-20').get('XBT')!.at(-1)!;
    assert.equal((await screen(since, 'bitcoin')).risk_profile.sanctioned_exposure, 1);
    await assert.rejects(
      importList(t, 'ofac', fixturePath('ofac_sdn/bench_2021'), '2021-07-07'),
      (e: Error & { code?: string; status?: number }) =>
        e.code === 'INVALID_TRANSITION' &&
        e.status === 409 &&
        e.message ===
          'ofac: this list was published 2021-07-07, before the held one (published 2025-06-20); importing it would drop what was listed since. To roll back deliberately, repeat with --allow-older (allow_older: true)',
    );
    assert.equal((await screen(since, 'bitcoin')).risk_profile.sanctioned_exposure, 1, 'held list kept');
    // The refusal is in the operator audit, with its reason.
    const refusal = (await t.deps.operatorAudit.list({ subject: 'ofac' })).at(-1)!;
    assert.equal(refusal.action, 'sanctions_list.import_refused');
    assert.deepEqual(
      [refusal.detail.error, refusal.detail.status, refusal.detail.allow_older],
      ['INVALID_TRANSITION', 409, false],
    );
    assert.match(
      String(refusal.detail.reason),
      /^ofac: this list was published 2021-07-07, before the held one/,
    );

    const back = await importList(t, 'ofac', fixturePath('ofac_sdn/bench_2021'), '2021-07-07', true);
    assert.equal(back.published_at, '2021-07-07');
    assert.equal(back.allow_older, true);
    assert.equal(back.rolled_back_from, '2025-06-20');
    const row = (await t.deps.operatorAudit.list({ subject: 'ofac' })).at(-1)!;
    assert.equal(row.detail.version, back.version);
    assert.equal(row.detail.allow_older, true);
    assert.equal(row.detail.rolled_back_from, '2025-06-20');
    assert.equal((await screen(since, 'bitcoin')).risk_profile.sanctioned_exposure, 0, 'rolled back');

    // The same publication again is no roll-back, and needs no override.
    const again = await importList(t, 'ofac', fixturePath('ofac_sdn/bench_2021'), '2021-07-07');
    assert.equal(again.version, back.version + 1);
    assert.equal(again.rolled_back_from, null);
  });

  it("takes an OFAC CSV set's file date for a first import only, and records where a date came from", async () => {
    // Held: the 2021 set imported again above. A copy of the 2025 set dated by its file alone is
    // refused, whatever that date: a fresh copy of an old set is dated today, a newer set restored
    // with cp -p keeps an old date. The override changes nothing; the operator must give the date.
    const { files } = readListFiles('ofac', fixturePath('ofac_sdn/tiny_2025'));
    const held = (await t.deps.commands('lists.status', {}, 'test')) as {
      lists: Array<{ source: string; version: number; published_at: string }>;
    };
    const ofac = held.lists.find((l) => l.source === 'ofac')!;
    assert.equal(ofac.published_at, '2021-07-07');
    for (const [file_date, allow_older] of [
      ['2026-01-05', false],
      ['2020-01-01', false],
      ['2020-01-01', true],
    ] as const)
      await assert.rejects(
        t.deps.commands('lists.import', { source: 'ofac', files, file_date, allow_older }, 'test'),
        (e: Error & { code?: string; status?: number }) =>
          e.code === 'INVALID_TRANSITION' &&
          e.status === 409 &&
          e.message ===
            `ofac: sdn.csv carries no publication date (the OFAC CSV set carries none) and an ofac list is held (published 2021-07-07): give it with --published-at YYYY-MM-DD; the file's modification date (${file_date}) dates only a first import`,
      );
    const kept = (await t.deps.commands('lists.status', {}, 'test')) as typeof held;
    assert.deepEqual(
      kept.lists.find((l) => l.source === 'ofac'),
      ofac,
    );
    // Given by the operator, the date is taken, and the answer and the audit event say whose it is.
    const dated = (await t.deps.commands(
      'lists.import',
      { source: 'ofac', files, file_date: '2020-01-01', published_at: '2025-05-16' },
      'test',
    )) as { version: number; published_at: string; published_at_from: string; rolled_back_from: null };
    assert.deepEqual(
      [dated.version, dated.published_at, dated.published_at_from, dated.rolled_back_from],
      [ofac.version + 1, '2025-05-16', 'operator', null],
    );
    const row = (await t.deps.operatorAudit.list({ subject: 'ofac' })).at(-1)!;
    assert.equal(row.detail.version, dated.version);
    assert.equal(row.detail.published_at_from, 'operator');
  });

  it('another instance answers from an import within its refresh interval, without a query per request', async () => {
    const repo = createSanctionsListsRepo(t.deps.db);
    let clock = 1_000_000;
    const other = createSanctionsListsService({
      repo,
      audit: t.deps.operatorAudit,
      refreshMs: 5000,
      now: () => clock,
    });
    const first = await other.current();
    const tiny = await importList(t, 'ofac', fixturePath('ofac_sdn/tiny_2025'), '2025-05-16');
    assert.equal(tiny.entries, 17);
    clock += 2499;
    assert.equal((await other.current()).tag, first.tag, 'no check before half the interval');
    clock += 2500;
    // Past half the interval a check starts in the background; the answer does not wait for it.
    assert.equal((await other.current()).tag, first.tag);
    clock += 1;
    // Once the lists are a whole interval unconfirmed, requests wait for the check (and the
    // reload), those arriving meanwhile too: none is answered from the old lists.
    const [now, meanwhile] = await Promise.all([other.current(), other.current()]);
    assert.notEqual(now.tag, first.tag);
    assert.equal(meanwhile.tag, now.tag);
    assert.equal(now.addresses.lookup('bitcoin', '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi')[0]?.entry_id, '33151');
    // After an idle spell the first request waits as well.
    await importList(t, 'ofac', fixturePath('ofac_sdn/tiny_2025'), '2025-05-16');
    clock += 60_000;
    assert.notEqual((await other.current()).tag, now.tag);
  });

  it('imports the OFAC sdn.xml format, with its publication date', async () => {
    const r = await importList(t, 'ofac', fixturePath('ofac_xml/sdn_sample.xml'));
    assert.equal(r.published_at, '2025-05-16');
    assert.equal((r as typeof r & { published_at_from: string }).published_at_from, 'file');
    assert.equal(
      (await t.deps.operatorAudit.list({ subject: 'ofac' })).at(-1)!.detail.published_at_from,
      'file',
    );
    assert.ok(r.entries >= 3);
    const s = await screen('1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi', 'bitcoin');
    assert.equal(s.risk_profile.sanctions_matches[0]?.name, 'SUEX OTC, S.R.O.');
  });

  it('imports the UN consolidated list (names only) and the EU list (Solana address)', async () => {
    const un = await importList(t, 'un', fixturePath('un_sanctions/UN_consolidated.xml'));
    assert.equal(un.entries, 730 + 273);
    assert.equal(un.addresses, 0);
    assert.equal(un.published_at, '2026-02-27T00:00:09.554Z');
    const eu = await importList(t, 'eu', fixturePath('eu_xml/eu_sample.xml'));
    assert.equal(eu.source, 'eu');
    // The file's generationDate="2025-06-20T18:30:04.123+02:00", held as its UTC instant.
    assert.equal(eu.published_at, '2025-06-20T16:30:04.123Z');
    const s = await screen('7vVcBLQwT1rmjiTXhhvmHKfiaCda2giGMeKchc2jwmBN', 'solana');
    assert.equal(s.risk_profile.risk_category, 'critical');
    assert.equal(s.risk_profile.sanctions_matches[0]?.list, 'eu');
    const status = (await t.deps.commands('lists.status', {}, 'test')) as {
      lists: Array<{ source: string }>;
    };
    assert.deepEqual(
      status.lists.map((l) => l.source),
      ['eu', 'ofac', 'un'],
    );
  });

  it('refuses a list without a publication date, unless the operator gives one', async () => {
    const refused = (source: 'ofac' | 'un', name: string, content: string, message: string) =>
      assert.rejects(
        t.deps.commands('lists.import', { source, files: [{ name, content }] }, 'test'),
        (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && e.message === message,
      );
    const un = readFileSync(fixturePath('un_sanctions/UN_consolidated.xml'), 'utf8').replace(
      / dateGenerated="[^"]*"/,
      '',
    );
    await refused(
      'un',
      'un.xml',
      un,
      'un: un.xml carries no publication date (no dateGenerated attribute); give it with --published-at YYYY-MM-DD',
    );
    const sdnXml = readFileSync(fixturePath('ofac_xml/sdn_sample.xml'), 'utf8').replace(
      /<Publish_Date>[^<]*<\/Publish_Date>/,
      '',
    );
    await refused(
      'ofac',
      'sdn.xml',
      sdnXml,
      'ofac: sdn.xml carries no publication date (no Publish_Date); give it with --published-at YYYY-MM-DD',
    );
    const csv = sdnWithoutCutRemarks();
    await refused(
      'ofac',
      'sdn.csv',
      csv,
      'ofac: sdn.csv carries no publication date (the OFAC CSV set carries none); give it with --published-at YYYY-MM-DD',
    );
    const status = (await t.deps.commands('lists.status', {}, 'test')) as {
      lists: Array<{ source: string; published_at: string | null }>;
    };
    assert.deepEqual(
      status.lists.map((l) => [l.source, l.published_at]),
      [
        ['eu', '2025-06-20T16:30:04.123Z'],
        ['ofac', '2025-05-16'],
        ['un', '2026-02-27T00:00:09.554Z'],
      ],
    );
    // Given, the operator's date is held; a date-time as its UTC instant.
    const dated = (await t.deps.commands(
      'lists.import',
      { source: 'un', files: [{ name: 'un.xml', content: un }], published_at: '2026-02-28T01:00:00+01:00' },
      'test',
    )) as { published_at: string };
    assert.equal(dated.published_at, '2026-02-28T00:00:00.000Z');
  });

  it('refuses a file of an unknown structure with a clear error and keeps the held list', async () => {
    const bad = async (source: 'ofac' | 'eu' | 'un', name: string, content: string, pattern: RegExp) => {
      await assert.rejects(
        t.deps.commands('lists.import', { source, files: [{ name, content }] }, 'test'),
        (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && pattern.test(e.message),
      );
    };
    await bad('ofac', 'sdn_advanced.xml', '<Sanctions><x/></Sanctions>', /expected root element <sdnList>/);
    await bad('un', 'list.xml', '<sdnList/>', /expected root element <CONSOLIDATED_LIST>/);
    await bad('eu', 'eu.csv', 'a;b;c\n1;2;3\n', /not XML/);
    await bad('ofac', 'sdn.csv', 'ent_num,name\r\n1,x\r\n', /sdn\.csv row 1/);
    await bad('un', 'un.xml', '<CONSOLIDATED_LIST><broken></CONSOLIDATED_LIST>', /not well-formed/);
    // Errors name the file given, and how a lone file was read; an empty file says it is empty.
    await bad('ofac', 'empty.xml', '', /^ofac: empty\.xml is empty; the held list was left unchanged$/);
    await bad('eu', 'eu.xml', ' \r\n', /^eu: eu\.xml is empty/);
    await bad(
      'ofac',
      'notes.txt',
      'hello\n',
      /^notes\.txt row 1: expected 12 columns, found 1 \(read as the OFAC sdn\.csv format\)$/,
    );
    // A binary file (for callers that skip the CLI, which checks the bytes) is no text, by name.
    await bad(
      'ofac',
      'blob.bin',
      '\u0016|AWg\u0000\u0001',
      /^ofac: blob\.bin is not a text file \(NUL bytes or invalid UTF-8\)$/,
    );
    await bad('un', 'un.xml', '<a>\uD800</a>', /^un: un\.xml is not a text file/);
    // A parser's message quotes the file: cut short, nothing unprintable pasted raw.
    await assert.rejects(
      t.deps.commands(
        'lists.import',
        { source: 'ofac', files: [{ name: 'noise.dat', content: `\u0016|AWg${'y'.repeat(5000)}"` }] },
        'test',
      ),
      (e: Error) => {
        assert.match(
          e.message,
          /^noise\.dat is not valid CSV: Invalid Opening Quote: .* value is "\\u0016\|AWgy+…" \(read as the OFAC sdn\.csv format\)$/,
        );
        assert.ok(e.message.length < 200, e.message);
        return true;
      },
    );
    // The OFAC XML imported above still serves.
    const s = await screen('1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi', 'bitcoin');
    assert.equal(s.risk_profile.risk_category, 'critical');
  });

  /** What is held per source: publication date and version. */
  const held = async () => {
    const { lists } = (await t.deps.commands('lists.status', {}, 'test')) as {
      lists: Array<{ source: string; published_at: string; version: number }>;
    };
    return Object.fromEntries(lists.map((l) => [l.source, [l.published_at, l.version]]));
  };
  const refusedWith = (source: 'ofac' | 'eu' | 'un', args: Record<string, unknown>, message: string) =>
    assert.rejects(
      t.deps.commands('lists.import', { source, ...args }, 'test'),
      (e: Error & { code?: string }) => {
        assert.equal(e.message, message);
        return e.code === 'INVALID_REQUEST';
      },
    );

  it('refuses a file that names the wrong list, is cut short, or holds fewer entries than it states, by name', async () => {
    const before = await held();
    const un = readFileSync(fixturePath('un_sanctions/UN_consolidated.xml'), 'utf8');
    await refusedWith(
      'eu',
      { files: [{ name: 'UN_consolidated.xml', content: un }] },
      'eu: UN_consolidated.xml is not the EU consolidated list: expected root element <export>, found <CONSOLIDATED_LIST>',
    );
    const sdn = readFileSync(fixturePath('ofac_xml/sdn_sample.xml'), 'utf8');
    await refusedWith(
      'ofac',
      { files: [{ name: 'sdn.xml', content: sdn.slice(0, sdn.indexOf('</akaList>')) }] },
      'ofac: sdn.xml is not well-formed XML: unclosed element <akaList> at end of file (inside <sdnList>, <sdnEntry>); is the file cut short?',
    );
    // Well-formed, newer, but 2 entries of the 5 its Record_Count states: it would unlist the rest.
    const { files } = readListFiles('ofac', fixturePath('ofac_xml/sdn_record_count_short.xml'));
    await refusedWith(
      'ofac',
      { files },
      'ofac: sdn_record_count_short.xml holds 2 <sdnEntry> records, fewer than its Record_Count states (5): the file is incomplete; download it again',
    );
    const short = (await t.deps.operatorAudit.list({ subject: 'ofac' })).at(-1)!;
    assert.equal(short.action, 'sanctions_list.import_refused');
    assert.deepEqual(short.detail.files, ['sdn_record_count_short.xml']);
    assert.match(String(short.detail.reason), /fewer than its Record_Count states \(5\)/);
    assert.deepEqual(await held(), before);
    const s = await screen('0x7F367cC41522cE07553e823bf3be79A889DEbe1B', 'ethereum');
    assert.equal(s.risk_profile.sanctions_matches[0]?.entry_id, '29584', 'an entry the short file left out');
  });

  it('refuses a publication date to come, which would refuse every later import as a roll-back', async () => {
    const before = await held();
    const eu = readFileSync(fixturePath('eu_xml/eu_sample.xml'), 'utf8');
    const euDated = (date: string) => eu.replace(/generationDate="[^"]*"/, `generationDate="${date}"`);
    const now = /it is now \d{4}-\d{2}-\d{2}T[\d:.]+Z; a day ahead is allowed for clocks set apart/;
    await assert.rejects(
      t.deps.commands(
        'lists.import',
        { source: 'eu', files: [{ name: 'eu.xml', content: euDated('2099-01-01T00:00:00+01:00') }] },
        'test',
      ),
      (e: Error & { code?: string }) =>
        e.code === 'INVALID_REQUEST' &&
        e.message.startsWith(
          'eu: the publication date eu.xml states, 2098-12-31T23:00:00.000Z, is in the future (',
        ) &&
        now.test(e.message) &&
        e.message.endsWith('); the held list was left unchanged'),
    );
    const euRefusal = (await t.deps.operatorAudit.list({ subject: 'eu' })).at(-1)!;
    assert.equal(euRefusal.action, 'sanctions_list.import_refused');
    assert.deepEqual(euRefusal.detail.files, ['eu.xml']);
    assert.match(
      String(euRefusal.detail.reason),
      /^eu: the publication date eu\.xml states, 2098-12-31T23:00:00\.000Z, is in the future/,
    );
    const csv = sdnWithoutCutRemarks();
    await assert.rejects(
      t.deps.commands(
        'lists.import',
        { source: 'ofac', files: [{ name: 'sdn.csv', content: csv }], published_at: '2099-01-01' },
        'test',
      ),
      (e: Error & { code?: string }) =>
        e.code === 'INVALID_REQUEST' &&
        e.message.startsWith('ofac: the publication date given, 2099-01-01, is in the future (') &&
        now.test(e.message),
    );
    assert.deepEqual(await held(), before);
    // A genuine later publication is taken.
    const later = (await t.deps.commands(
      'lists.import',
      { source: 'eu', files: [{ name: 'eu.xml', content: euDated('2025-07-01T10:00:00+02:00') }] },
      'test',
    )) as { published_at: string };
    assert.equal(later.published_at, '2025-07-01T08:00:00.000Z');
  });

  it('names an entry the list gives no name, and merges a repeated entry id into its first record', async () => {
    const addressA = '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2';
    const addressB = '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy';
    const addressC = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const xbt = (a: string) =>
      `<identification identificationTypeCode="other" identificationTypeDescription="Digital Currency Address - XBT" number="${a}"/>`;
    const xml = `<export generationDate="2025-08-01T10:00:00.000+02:00">
      <sanctionEntity euReferenceNumber="EU.9100.01"><regulation programme="RUS"/><subjectType code="enterprise"/>${xbt(addressA)}</sanctionEntity>
      <sanctionEntity euReferenceNumber="EU.9101.01"><regulation programme="RUS"/><subjectType code="enterprise"/>
        <nameAlias wholeName="Illustrative First Holding"/>${xbt(addressB)}</sanctionEntity>
      <sanctionEntity euReferenceNumber="EU.9101.01"><regulation programme="UKR"/><subjectType code="enterprise"/>
        <nameAlias wholeName="Exemplary Zanzibar Trading"/>${xbt(addressC)}</sanctionEntity>
    </export>`;
    const r = (await t.deps.commands(
      'lists.import',
      { source: 'eu', files: [{ name: 'eu.xml', content: xml }] },
      'test',
    )) as { entries: number; addresses: number; warnings: string[] };
    assert.equal(r.entries, 2);
    assert.equal(r.addresses, 3);
    assert.deepEqual(r.warnings, [
      'eu: entry id EU.9101.01 is listed again ("Exemplary Zanzibar Trading"): merged into its first record ("Illustrative First Holding"), its names held as aliases, its addresses and programmes kept',
      'eu: entry EU.9100.01 has no name nor alias: its entry id stands for its name',
    ]);
    const match = async (address: string) =>
      (await screen(address, 'bitcoin')).risk_profile.sanctions_matches.find((m) => m.list === 'eu');
    // A hit on the nameless entry names it by its id, never "".
    assert.deepEqual(await match(addressA), {
      list: 'eu',
      entry_id: 'EU.9100.01',
      name: 'EU.9100.01',
      programs: ['RUS'],
      matched: 'address',
      score: 1,
    });
    // The second record's address is the entry's, with the programmes of both.
    for (const address of [addressB, addressC])
      assert.deepEqual(await match(address), {
        list: 'eu',
        entry_id: 'EU.9101.01',
        name: 'Illustrative First Holding',
        programs: ['RUS', 'UKR'],
        matched: 'address',
        score: 1,
      });
    // Its name is screened as an alias of the entry, not dropped.
    const named = await screenPost(t, auth, {
      wallet_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
      blockchain: 'bitcoin',
      beneficiary_name: 'Exemplary Zanzibar Trading',
    });
    assert.equal(named.statusCode, 200, named.body);
    const hit = (named.json() as Screening).risk_profile.sanctions_matches.find((m) => m.list === 'eu');
    assert.equal(hit?.entry_id, 'EU.9101.01');
    assert.equal(hit?.matched, 'name');

    // The same for the UN list: an INDIVIDUAL with its REFERENCE_NUMBER alone.
    const un = (await t.deps.commands(
      'lists.import',
      {
        source: 'un',
        files: [
          {
            name: 'un.xml',
            content:
              '<CONSOLIDATED_LIST dateGenerated="2026-03-01T00:00:00Z"><INDIVIDUALS><INDIVIDUAL><DATAID>1</DATAID><REFERENCE_NUMBER>QDi.999</REFERENCE_NUMBER><UN_LIST_TYPE>Al-Qaida</UN_LIST_TYPE></INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>',
          },
        ],
      },
      'test',
    )) as { warnings: string[] };
    assert.deepEqual(un.warnings, [
      'un: entry QDi.999 has no name nor alias: its entry id stands for its name',
    ]);
  });
});
