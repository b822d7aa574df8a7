import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshDatabase, TEST_DATABASE_URL } from '../helpers/harness.ts';
import { fixturePath, type Screening } from '../helpers/screening.ts';
import { type ServerProcess, startServerProcess, tempDataDir } from '../helpers/server-process.ts';

const dataDir = tempDataDir();
const env = { MICA_DATA_DIR: dataDir, ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}) };

// biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON output, checked field by field below
type CliJson = any;

/** Runs `npm run mica -- …` as an operator does (without npm's banner), asynchronously. */
function mica(...args: string[]) {
  return micaWith({}, ...args);
}

/** The same with extra environment (INIT_CWD: where npm was invoked); undefined unsets a variable. */
function micaWith(
  extra: Record<string, string | undefined>,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string; json: () => CliJson }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, LOG_LEVEL: 'silent', ...extra };
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete childEnv[k];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: childEnv,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('close', (code) => resolve({ code, out, err, json: () => JSON.parse(out) }));
  });
}

/** Retries until the check passes (at most 15 s); returns the last value and the tries it took. */
async function eventually<T>(
  get: () => Promise<T>,
  check: (v: T) => boolean,
): Promise<T & { tries: number }> {
  const deadline = Date.now() + 15_000;
  for (let tries = 1; ; tries++) {
    const v = await get();
    if (check(v) || Date.now() > deadline)
      return Object.assign(v as object, { tries }) as T & { tries: number };
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('mica lists import (the CLI, spawned)', () => {
  let server: ServerProcess | undefined;
  before(async () => {
    if (TEST_DATABASE_URL) await (await freshDatabase()).close();
  });
  after(async () => {
    await server?.stop('SIGKILL');
  });

  it('imports an OFAC CSV directory on the store directly', async () => {
    // A copy dated as its publication: the fixture's own file date is when it was checked out.
    const dir = join(dataDir, 'bench_2021');
    cpSync(fixturePath('ofac_sdn/bench_2021'), dir, { recursive: true });
    const published = new Date('2021-07-07T12:00:00Z');
    for (const f of readdirSync(dir)) utimesSync(join(dir, f), published, published);
    const r = await mica('lists', 'import', 'ofac', dir);
    assert.equal(r.code, 0, r.err);
    const out = r.json();
    assert.equal(out.source, 'ofac');
    assert.equal(out.version, 1);
    assert.equal(out.entries, 8976);
    assert.equal(out.addresses, 97);
    assert.deepEqual(out.files, ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv']);
    // The CSV set carries no date: on a first import the file's date stands in unless one is given.
    assert.equal(out.published_at, '2021-07-07');
    assert.equal(out.published_at_from, 'file_date');
    // Said, with how to put it right should the publication be older than the copy.
    assert.match(
      out.warnings[0],
      /dated by the file's modification date \(2021-07-07\).*--published-at <its date> --allow-older/,
    );
  });

  it('takes sdn.csv itself (its companions are read beside it) and an explicit publication date', async () => {
    const r = await mica(
      'lists',
      'import',
      'ofac',
      fixturePath('ofac_sdn/tiny_2025/sdn.csv'),
      '--published-at',
      '2025-05-16',
    );
    assert.equal(r.code, 0, r.err);
    const out = r.json();
    assert.equal(out.version, 2);
    assert.equal(out.published_at, '2025-05-16');
    assert.equal(out.published_at_from, 'operator');
    assert.equal(out.entries, 17);
    assert.equal(out.addresses, 32);
    // A date that does not exist is refused, not rolled over (and nothing is imported).
    const bad = await mica(
      'lists',
      'import',
      'ofac',
      fixturePath('ofac_sdn/tiny_2025/sdn.csv'),
      '--published-at',
      '2025-02-30',
    );
    assert.equal(bad.code, 1);
    assert.match(JSON.parse(bad.err).error, /published_at: not an existing ISO 8601 date/);
  });

  it('fails with exit 1 and a JSON error on stderr for an unknown structure or path', async () => {
    const csv = join(dataDir, 'eu.csv');
    writeFileSync(csv, 'a;b\n1;2\n');
    const sdnAlone = join(dataDir, 'sdn-alone');
    mkdirSync(sdnAlone);
    cpSync(fixturePath('ofac_sdn/bench_2021/sdn.csv'), join(sdnAlone, 'sdn.csv'));
    const xml = join(dataDir, 'advanced.xml');
    writeFileSync(xml, '<?xml version="1.0"?><Sanctions><DateOfIssue/></Sanctions>');
    for (const [args, pattern] of [
      [['eu', csv], /not XML/],
      [
        ['ofac', xml],
        /^ofac: advanced\.xml is not an OFAC sdn\.xml: expected root element <sdnList>, found <Sanctions>$/,
      ],
      [
        ['eu', fixturePath('un_sanctions/UN_consolidated.xml')],
        /^eu: UN_consolidated\.xml is not the EU consolidated list: expected root element <export>, found <CONSOLIDATED_LIST>$/,
      ],
      [['ofac', join(dataDir, 'missing')], /cannot read/],
      // sdn.csv without the sdn_comments.csv its cut Remarks continue in: 16 of 97 addresses lost.
      [
        ['ofac', sdnAlone, '--published-at', '2025-06-01'],
        /^ofac: the Remarks of 5 entries fill sdn\.csv's field to its cut at 1000 characters \(12300 \(CIFUENTES VILLA, Jorge Milton\), .*30518 \(SECONDEYE SOLUTION\)\); OFAC continues them in sdn_comments\.csv, which is missing/,
      ],
      // A date to come would be held, and refuse every genuine import after it as a roll-back.
      [
        ['ofac', fixturePath('ofac_sdn/tiny_2025'), '--published-at', '2099-01-01'],
        /^ofac: the publication date given, 2099-01-01, is in the future \(it is now .*Z; a day ahead is allowed for clocks set apart\); the held list was left unchanged$/,
      ],
    ] as Array<[string[], RegExp]>) {
      const r = await mica('lists', 'import', ...args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.out}`);
      assert.match(JSON.parse(r.err).error, pattern);
    }
    // Errors name the file given: an empty one says so, a lone non-XML file is read as sdn.csv.
    const other = join(dataDir, 'other');
    mkdirSync(other);
    const files: Record<string, string | Buffer> = {
      'empty.xml': '',
      'notes.txt': 'hello\n',
      // Random bytes as a download gone wrong gives them, with NULs; then invalid UTF-8 without any.
      'garbage.bin': Buffer.from([0x16, 0x7c, 0x41, 0x57, 0x67, 0xff, 0x00, 0xfe, 0x22, 0x80]),
      'latin1.csv': Buffer.from([0x31, 0x2c, 0x22, 0x42, 0x4f, 0x5a, 0x49, 0x5a, 0xc9, 0x22]),
    };
    for (const [name, content] of Object.entries(files)) writeFileSync(join(other, name), content);
    for (const [name, message] of [
      ['empty.xml', 'ofac: empty.xml is empty; the held list was left unchanged'],
      ['notes.txt', 'notes.txt row 1: expected 12 columns, found 1 (read as the OFAC sdn.csv format)'],
      ['garbage.bin', 'ofac: garbage.bin is not a text file (NUL bytes or invalid UTF-8)'],
      ['latin1.csv', 'ofac: latin1.csv is not a text file (NUL bytes or invalid UTF-8)'],
    ] as const) {
      const r = await mica('lists', 'import', 'ofac', join(other, name));
      assert.equal(r.code, 1, `${name}: ${r.out}`);
      assert.equal(JSON.parse(r.err).error, message);
    }
    // The held list is unchanged.
    const status = await mica('lists', 'status');
    assert.equal(status.code, 0, status.err);
    const ofac = status.json().lists.find((l: { source: string }) => l.source === 'ofac');
    assert.equal(ofac.version, 2);
    assert.equal(ofac.entry_count, 17);
    // With the warnings of the import that put it there (the tiny set's alt.csv names 5 entries it
    // does not hold).
    assert.equal(ofac.warning_count, 5);
    assert.deepEqual(
      ofac.warnings,
      [10416, 11935, 18820, 30221, 29445].map((id) => `alt.csv: aliases for unknown ent_num ${id} ignored`),
    );
    // Each refusal is in the operator audit, the last one here the binary file.
    const audit = await mica('audit', 'operator');
    assert.equal(audit.code, 0, audit.err);
    const refusals = (audit.json() as CliJson[]).filter((e) => e.action === 'sanctions_list.import_refused');
    const cut = refusals.find(
      (e) => e.detail.files[0] === 'sdn.csv' && e.detail.published_at === '2025-06-01',
    );
    assert.ok(cut, JSON.stringify(refusals));
    assert.equal(cut.subject, 'ofac');
    assert.match(cut.actor, /^cli:/);
    assert.match(cut.detail.reason, /sdn_comments\.csv, which is missing/);
  });

  it('a running server screens with the imported list (embedded: at once; PostgreSQL: within its refresh)', async () => {
    server = await startServerProcess({ ...env, MICA_DEMO_SEED: 'false', SANCTIONS_REFRESH_MS: '1000' });
    assert.equal((await mica('clients', 'create', 'cli-lists')).code, 0);
    const key = (await mica('keys', 'create', 'cli-lists')).json().key as string;
    const screen = (address: string, chain: string) =>
      fetch(`${server!.url}/api/mica/wallet-screening?wallet_address=${address}&blockchain=${chain}`, {
        headers: { authorization: `Bearer ${key}` },
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Screening }));

    // The tiny list imported above holds SUEX; the 2021 snapshot's cut address is not on it.
    assert.equal(
      (await screen('1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi', 'bitcoin')).body.risk_profile.risk_category,
      'critical',
    );
    assert.equal(
      (await screen('1GqChmWqGtsaLrGbHfgdrV5Nkvahtjjuxr', 'bitcoin')).body.risk_profile.risk_category,
      'low',
    );

    // A binary file gets the same answer as with the server stopped (the CLI checks the bytes),
    // not the operator API's refusal of a NUL in its body.
    const garbage = await mica('lists', 'import', 'ofac', join(dataDir, 'other', 'garbage.bin'));
    assert.equal(garbage.code, 1, garbage.out);
    assert.equal(
      JSON.parse(garbage.err).error,
      'ofac: garbage.bin is not a text file (NUL bytes or invalid UTF-8)',
    );
    // The 2021 set is older than the held one (2025-05-16): refused, unless the roll-back is meant.
    const args = [
      'lists',
      'import',
      'ofac',
      fixturePath('ofac_sdn/bench_2021'),
      '--published-at',
      '2021-07-07',
    ];
    const older = await mica(...args);
    assert.equal(older.code, 1, older.out);
    assert.equal(
      JSON.parse(older.err).error,
      'ofac: this list was published 2021-07-07, before the held one (published 2025-05-16); importing it would drop what was listed since. To roll back deliberately, repeat with --allow-older (allow_older: true)',
    );
    const r = await mica(...args, '--allow-older');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.json().version, 3);
    assert.equal(r.json().allow_older, true);
    assert.equal(r.json().rolled_back_from, '2025-05-16');
    // Embedded, the CLI went through the server's operator API: the server reloaded before
    // answering it. With DATABASE_URL the CLI wrote to the database and the server notices the
    // new version on its next check (SANCTIONS_REFRESH_MS).
    const hit = await eventually(
      () => screen('1GqChmWqGtsaLrGbHfgdrV5Nkvahtjjuxr', 'bitcoin'),
      (h) => h.body.risk_profile.risk_category === 'critical',
    );
    if (!TEST_DATABASE_URL) assert.equal(hit.tries, 1, 'visible at once through the operator API');
    assert.equal(hit.status, 200);
    assert.equal(hit.body.risk_profile.risk_category, 'critical');
    assert.equal(hit.body.risk_profile.sanctions_matches[0]?.entry_id, '30518');

    const un = await mica('lists', 'import', 'un', fixturePath('un_sanctions/UN_consolidated.xml'));
    assert.equal(un.code, 0, un.err);
    const named = await eventually(
      () =>
        fetch(`${server!.url}/api/mica/wallet-screening`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            wallet_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
            blockchain: 'bitcoin',
            beneficiary_name: 'Francois Yangouvonda Bozize',
          }),
        }).then((res) => res.json() as Promise<Screening>),
      (n) => n.risk_profile.sanctions_matches.some((m) => m.list === 'un'),
    );
    assert.deepEqual(named.rule_evaluation.actions, ['REVIEW']);
    // BOZIZÉ is on both lists; the accent-stripped spelling finds the UN entry.
    const unMatch = named.risk_profile.sanctions_matches.find((m) => m.list === 'un')!;
    assert.deepEqual(
      { entry_id: unMatch.entry_id, matched: unMatch.matched, score: unMatch.score },
      { entry_id: 'CFi.001', matched: 'name', score: 1 },
    );
  });

  it('a relative path is read from where npm was invoked (INIT_CWD), else the working directory', async () => {
    // `npm run mica` runs the CLI in the package directory (this test's working directory); the
    // operator's directory is INIT_CWD. The file's content goes to the server, read from there.
    const home = mkdtempSync(join(tmpdir(), 'mica-operator-'));
    cpSync(fixturePath('ofac_sdn/tiny_2025'), join(home, 'sdn'), { recursive: true });
    const dir = await micaWith(
      { INIT_CWD: home },
      'lists',
      'import',
      'ofac',
      'sdn',
      '--published-at',
      '2025-05-16',
    );
    assert.equal(dir.code, 0, dir.err);
    assert.equal(dir.json().version, 4);
    assert.equal(dir.json().entries, 17);
    assert.deepEqual(dir.json().files, ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv']);
    // Over a held list the file's date no longer stands in: this fresh copy is dated today, which
    // says nothing of its publication (a 2021 set copied now would pass for the newest).
    const undated = await micaWith({ INIT_CWD: join(home, 'sdn') }, 'lists', 'import', 'ofac', './sdn.csv');
    assert.equal(undated.code, 1, undated.out);
    assert.match(
      JSON.parse(undated.err).error,
      /^ofac: sdn\.csv carries no publication date \(the OFAC CSV set carries none\) and an ofac list is held \(published 2025-05-16\): give it with --published-at YYYY-MM-DD; the file's modification date \(\d{4}-\d{2}-\d{2}\) dates only a first import$/,
    );
    const file = await micaWith(
      { INIT_CWD: join(home, 'sdn') },
      'lists',
      'import',
      'ofac',
      './sdn.csv',
      '--published-at',
      '2025-05-16',
    );
    assert.equal(file.code, 0, file.err);
    assert.equal(file.json().version, 5);
    const missing = await micaWith({ INIT_CWD: home }, 'lists', 'import', 'ofac', 'elsewhere');
    assert.equal(missing.code, 1, missing.out);
    assert.match(JSON.parse(missing.err).error, new RegExp(`cannot read ${join(home, 'elsewhere')}: ENOENT`));
    // Started directly (no npm): relative to the working directory. The fixture's file date (when
    // it was checked out) does not date it either, override or not.
    const fixture = relative(process.cwd(), fixturePath('ofac_sdn/tiny_2025'));
    const overridden = await micaWith(
      { INIT_CWD: undefined },
      'lists',
      'import',
      'ofac',
      fixture,
      '--allow-older',
    );
    assert.equal(overridden.code, 1, overridden.out);
    assert.match(JSON.parse(overridden.err).error, /and an ofac list is held \(published 2025-05-16\)/);
    const direct = await micaWith(
      { INIT_CWD: undefined },
      'lists',
      'import',
      'ofac',
      fixture,
      '--published-at',
      '2025-05-16',
    );
    assert.equal(direct.code, 0, direct.err);
    assert.equal(direct.json().version, 6);
    assert.equal(direct.json().rolled_back_from, null);
  });
});
