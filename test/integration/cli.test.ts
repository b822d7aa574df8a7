import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ACTION_COLUMNS } from '../../src/services/action-audit.service.ts';
import { freshDatabase, TEST_DATABASE_URL } from '../helpers/harness.ts';
import {
  type ServerProcess,
  startServerProcess,
  statusOnceSeen,
  tempDataDir,
} from '../helpers/server-process.ts';
import { CASP_CSV } from '../helpers/travel-rule.ts';

const dataDir = tempDataDir();
const env = { MICA_DATA_DIR: dataDir, ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}) };

/** Runs `npm run mica -- …` the way an operator does (without npm's banner). */
function mica(...args: string[]) {
  return micaWith({}, ...args);
}

/**
 * The same with extra environment; `INIT_CWD` is where npm was invoked from (npm runs the CLI in
 * the package directory, this test's working directory). An undefined value unsets a variable.
 */
function micaWith(extra: Record<string, string | undefined>, ...args: string[]) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, LOG_LEVEL: 'silent', ...extra };
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete childEnv[k];
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: childEnv,
    encoding: 'utf8',
    timeout: 60_000,
    // spawnSync's default (1 MiB) kills a child that writes more: an export of the bulk client is
    // larger, and its cut output looked like a CLI that lost its last bytes.
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) };
}

/** Exit 1, nothing on stdout, and the JSON error on stderr matches. */
function assertFails(r: ReturnType<typeof mica>, pattern: RegExp, what: string) {
  assert.equal(r.code, 1, `${what}: ${r.out}`);
  assert.equal(r.out, '', what);
  assert.match(JSON.parse(r.err).error, pattern, what);
}

async function evaluateWith(url: string, key: string, clientId: string) {
  const res = await fetch(`${url}/api/mica/evaluate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: clientId, trigger_type: 'periodic', data: {} }),
  });
  return res.status;
}

/** A read with the key (nothing audited), for waiting until a revocation is seen. */
async function rulesWith(url: string, key: string) {
  const res = await fetch(`${url}/api/mica/rules`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

describe('the mica CLI', () => {
  let server: ServerProcess | undefined;
  let actionsThroughServer = '';
  before(async () => {
    if (TEST_DATABASE_URL) await (await freshDatabase()).close();
  });
  after(async () => {
    await server?.stop('SIGKILL');
  });

  it('works on the store directly when no server runs', () => {
    const m = mica('migrate');
    assert.equal(m.code, 0, m.err);
    assert.ok(Array.isArray(m.json().applied));
    const c = mica('clients', 'create', 'acme', '--name', 'ACME Exchange');
    assert.equal(c.code, 0, c.err);
    assert.deepEqual(c.json(), { client_id: 'acme', name: 'ACME Exchange', settings: {} });
    const k = mica('keys', 'create', 'acme', '--role', 'admin', '--expires-in-days', '30');
    assert.equal(k.code, 0, k.err);
    const key = k.json();
    assert.match(key.key, /^mica_live_/);
    assert.equal(key.role, 'admin');
    const days = (Date.parse(key.expires_at) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30);
    // Listed with what an operator needs to rotate or revoke it, never the key or its digest.
    const listed = mica('keys', 'list', 'acme');
    assert.equal(listed.code, 0, listed.err);
    const entry = listed.json().keys.find((e: { key_id: string }) => e.key_id === key.key_id);
    assert.equal(entry?.state, 'active');
    assert.equal(entry?.role, 'admin');
    assert.ok(!listed.out.includes(key.key) && !/key_hash|mica_live_/.test(listed.out), listed.out);
    assertFails(mica('keys', 'list', 'nobody'), /client nobody not found/, 'unknown client');
    // Settings are replaced whole: what is stored can be read first.
    const set = mica(
      'clients',
      'settings',
      'acme',
      '{"retention_years":10,"thresholds":{"cdd_amount_eur":700}}',
    );
    assert.equal(set.code, 0, set.err);
    const shown = mica('clients', 'show', 'acme');
    assert.equal(shown.code, 0, shown.err);
    assert.deepEqual(shown.json().settings, { retention_years: 10, thresholds: { cdd_amount_eur: 700 } });
    assert.equal(shown.json().name, 'ACME Exchange');
    assertFails(mica('clients', 'show', 'nobody'), /client nobody not found/, 'unknown client');
    // The operator's own trail: what was done to the client, by whom, oldest first.
    const trail = mica('audit', 'operator', '--client', 'acme');
    assert.equal(trail.code, 0, trail.err);
    const actions = trail.json().map((e: { action: string }) => e.action);
    assert.deepEqual(actions.slice(0, 1), ['client.created']);
    assert.ok(actions.includes('key.created') && actions.includes('client.settings_changed'), actions.join());
    const last = mica('audit', 'operator', '--client', 'acme', '--limit', '1');
    assert.deepEqual(
      last.json().map((e: { action: string }) => e.action),
      actions.slice(-1),
    );
    assert.ok(last.json()[0].at && last.json()[0].actor, last.out);
    assertFails(mica('audit', 'operator', '--client', 'nobody'), /client nobody not found/, 'unknown client');
  });

  it('prints errors as JSON on stderr with exit code 1', () => {
    const dup = mica('clients', 'create', 'acme');
    assert.equal(dup.code, 1);
    assert.match(JSON.parse(dup.err).error, /already exists/);
    const unknownClient = mica('keys', 'create', 'nobody');
    assert.equal(unknownClient.code, 1);
    assertFails(
      mica('keys', 'create', 'acme', '--role', 'root'),
      /role: Must be one of: standard, admin/,
      'role',
    );
    const badSettings = mica('clients', 'settings', 'acme', '{"thresholds":{"cdd_amount_eur":-1}}');
    assert.equal(badSettings.code, 1);
    // Commander's own refusals are JSON on stderr too (one was silent: a settings text not JSON).
    assertFails(mica('clients', 'settings', 'acme', '{thresholds:'), /must be a JSON object/, 'not JSON');
    assertFails(mica('nonsense'), /unknown command 'nonsense'/, 'unknown command');
    assertFails(mica('keys', 'create'), /missing required argument/, 'missing argument');
    // A group without its command: the group's help, then an error line that says what is missing.
    for (const [args, named] of [
      [['keys'], 'mica keys <command>'],
      [[], 'mica <command>'],
    ] as const) {
      const r = mica(...args);
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      const last = r.err.trim().split('\n').at(-1)!;
      assert.equal(JSON.parse(last).error, `missing command: ${named}, one of those listed above`);
    }
    assertFails(
      mica('keys', 'create', 'acme', '--expires-in-days', '-3'),
      /must be a positive number/,
      'bad value',
    );
  });

  it('a reader that closes the pipe early ends the command quietly (no EPIPE stack trace)', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'audit', 'export', '--client', 'acme'],
      {
        env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.destroy(); // like `| head` that has already gone
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, err);
    assert.equal(err, '');
  });

  it('keys are for the environment at hand; a key of the other one is refused, not stored', () => {
    const sandbox = { MICA_ENVIRONMENT: 'sandbox' };
    assert.match(micaWith(sandbox, 'keys', 'create', 'acme').json().key, /^mica_test_/);
    assert.match(micaWith(sandbox, 'keys', 'create', 'acme', '--sandbox').json().key, /^mica_test_/);
    assert.match(mica('keys', 'create', 'acme', '--live').json().key, /^mica_live_/);
    // The sandbox has a store of its own (CONTRACT §1): no service would ever accept such a key.
    const before = mica('keys', 'list', 'acme').json().keys.length as number;
    assertFails(micaWith(sandbox, 'keys', 'create', 'acme', '--live'), /issued on the live service/, 'live');
    assertFails(mica('keys', 'create', 'acme', '--sandbox'), /issued on the sandbox service/, 'sandbox');
    assert.equal(mica('keys', 'list', 'acme').json().keys.length, before);
    assertFails(
      mica('keys', 'create', 'acme', '--sandbox', '--live'),
      /cannot be used with option '--sandbox'/,
      'both',
    );
  });

  it('audit verify, export and checkpoints refuse an unknown client like keys create does', () => {
    const keysCreate = mica('keys', 'create', 'nobody');
    assertFails(keysCreate, /^client nobody not found$/, 'keys create');
    for (const args of [
      ['audit', 'verify', '--client', 'nobody'],
      ['audit', 'export', '--client', 'nobody'],
      ['audit', 'checkpoints', '--client', 'nobody'],
      ['audit', 'checkpoint', '--client', 'nobody'],
    ])
      assertFails(mica(...args), /^client nobody not found$/, args.join(' '));
    // A known client without rows has an empty, intact chain and an empty export.
    const verified = mica('audit', 'verify', '--client', 'acme');
    assert.equal(verified.code, 0, verified.err);
    assert.equal(verified.json().ok, true);
    assert.equal(verified.json().rows_verified, 0);
    const exported = mica('audit', 'export', '--client', 'acme', '--format', 'json');
    assert.equal(exported.code, 0, exported.err);
    assert.deepEqual(exported.json(), []);
    // By chain positions: the position the export is complete through is said on stderr.
    const byPosition = mica('audit', 'export', '--client', 'acme', '--format', 'json', '--after-seq', '0');
    assert.equal(byPosition.code, 0, byPosition.err);
    assert.deepEqual(byPosition.json(), []);
    assert.deepEqual(JSON.parse(byPosition.err), { through_seq: 0 });
    assertFails(
      mica('audit', 'export', '--client', 'acme', '--after-seq', '5'),
      /after_seq: Beyond the chain head: the last position committed for this client is 0/,
      'beyond the head',
    );
    assertFails(mica('audit', 'export', '--client', 'acme', '--through-seq', '-1'), /whole number/, '-1');
  });

  it('audit verify --checkpoints checks the chain against checkpoints kept elsewhere', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mica-cps-'));
    const file = join(dir, 'acme-checkpoints.json');
    // A checkpoint the database does not hold (its row is not there): the chain lost rows.
    writeFileSync(
      file,
      JSON.stringify({
        checkpoints: [
          { client_id: 'acme', seq: 1, head_hash: 'ab'.repeat(32), created_at: new Date().toISOString() },
        ],
      }),
    );
    const res = mica('audit', 'verify', '--client', 'acme', '--checkpoints', file);
    assert.equal(res.code, 1, res.err);
    assert.equal(res.json().ok, false);
    assert.equal(res.json().external_checkpoints, 1);
    assert.deepEqual(res.json().first_break, { chain_seq: 1, evaluation_id: null, reason: 'row_missing' });
    writeFileSync(
      file,
      JSON.stringify([
        { client_id: 'globex', seq: 1, head_hash: 'ab'.repeat(32), created_at: '2026-01-01T00:00:00Z' },
      ]),
    );
    assertFails(
      mica('audit', 'verify', '--client', 'acme', '--checkpoints', file),
      /client globex, not of acme/,
      'foreign',
    );
    for (const text of ['{"checkpoints": 3}', '[]', '{"checkpoints": []}']) {
      // An empty list would confirm nothing, and read as if the outside copy had been checked.
      writeFileSync(file, text);
      assertFails(
        mica('audit', 'verify', '--client', 'acme', '--checkpoints', file),
        /holds no checkpoints/,
        text,
      );
    }
    writeFileSync(file, `[{"seq": 4, "head_hash": "${'ab'.repeat(32)}"}]`);
    assertFails(
      mica('audit', 'verify', '--client', 'acme', '--checkpoints', file),
      /checkpoints\[0\]\.created_at: Required/,
      'the missing field named',
    );
    writeFileSync(file, '[{"seq": 0, "head_hash": "x", "created_at": "yesterday"}]');
    assertFails(mica('audit', 'verify', '--client', 'acme', '--checkpoints', file), /checkpoints/, 'fields');
    assertFails(
      mica('audit', 'verify', '--client', 'acme', '--checkpoints', join(dir, 'none.json')),
      /cannot read/,
      'missing',
    );
  });

  it('audit export refuses from/to dates that do not exist', () => {
    for (const [flag, value] of [
      ['--from', '2026-02-30'],
      ['--to', '2026-11-31'],
      ['--to', '2026-02-29'],
      ['--from', '2026-01-01T24:00:00Z'],
    ] as const)
      assertFails(
        mica('audit', 'export', '--client', 'acme', flag, value),
        new RegExp(`^Invalid request: ${flag.slice(2)}: `),
        `${flag} ${value}`,
      );
    const leapDay = mica('audit', 'export', '--client', 'acme', '--from', '2024-02-29', '--to', '2026-03-01');
    assert.equal(leapDay.code, 0, leapDay.err);
  });

  it('goes through the running server when it holds the embedded store; same output', async () => {
    server = await startServerProcess({ ...env, MICA_DEMO_SEED: 'false' });
    if (!TEST_DATABASE_URL) {
      const info = statSync(`${dataDir}/server.json`);
      assert.equal(info.mode & 0o777, 0o600, 'server.json is readable by its owner only');
    }
    const k = mica('keys', 'create', 'acme');
    assert.equal(k.code, 0, k.err);
    const created = k.json();
    assert.equal(await evaluateWith(server.url, created.key, 'acme'), 200);

    const rotated = mica('keys', 'rotate', created.key_id);
    assert.equal(rotated.code, 0, rotated.err);
    assert.equal(await evaluateWith(server.url, rotated.json().key, 'acme'), 200);
    assert.equal(await evaluateWith(server.url, created.key, 'acme'), 200, 'old key in its grace period');

    const exported = mica('audit', 'export', '--client', 'acme', '--format', 'csv');
    assert.equal(exported.code, 0, exported.err);
    const lines = exported.out.trim().split('\r\n');
    assert.match(lines[0]!, /^client_id,evaluation_id,rule_id,result,/);
    assert.equal(lines.length, 1 + 3 * 6, 'three periodic evaluations of six rules');
    // What came after the first evaluation, and the position to continue from (the header of the
    // operator API, said on stderr).
    const since = mica('audit', 'export', '--client', 'acme', '--format', 'csv', '--after-seq', '1');
    assert.equal(since.code, 0, since.err);
    assert.deepEqual(JSON.parse(since.err), { through_seq: 3 });
    assert.deepEqual(since.out.trim().split('\r\n').slice(1), lines.slice(1, 1 + 2 * 6));
    // A reader slower than the export gets all of it: the CLI exits only once stdout is written
    // (a pipe write is asynchronous, and exiting dropped what was still queued, with exit 0).
    assert.equal(mica('clients', 'create', 'bulk').code, 0);
    const more = mica('keys', 'create', 'bulk').json().key as string;
    for (let i = 0; i < 30; i++)
      await Promise.all(Array.from({ length: 10 }, () => evaluateWith(server!.url, more, 'bulk')));
    const reference = mica('audit', 'export', '--client', 'bulk', '--format', 'csv');
    assert.equal(reference.code, 0, reference.err);
    assert.ok(reference.out.length > 300_000, String(reference.out.length));
    // Through a shell pipe read slowly to the end, as `mica audit export … | upload`: a pipe write
    // is asynchronous, and exiting at once dropped what was still queued (JSON's closing bracket,
    // or the last rows), with exit 0.
    const slowReader =
      'import sys,time\nwhile True:\n b=sys.stdin.buffer.read1(4096)\n if not b: break\n sys.stdout.buffer.write(b); sys.stdout.flush(); time.sleep(0.01)';
    const referenceJson = mica('audit', 'export', '--client', 'bulk', '--format', 'json');
    assert.equal(referenceJson.code, 0, referenceJson.err);
    for (const [format, whole] of [
      ['json', referenceJson.out],
      ['csv', reference.out],
    ] as const) {
      const child = spawn(
        'bash',
        [
          '-c',
          `set -o pipefail; "${process.execPath}" --import tsx src/cli/main.ts audit export --client bulk --format ${format} | python3 -c "$READER"`,
        ],
        {
          env: { ...process.env, ...env, LOG_LEVEL: 'silent', READER: slowReader },
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      child.stdout.setEncoding('utf8');
      let slow = '';
      for await (const chunk of child.stdout) slow += chunk;
      assert.equal(await closed, 0);
      // Whole: byte for byte what an export read at full speed gives (JSON closed, last row whole).
      assert.equal(slow.length, whole.length, `${format}: ${slow.slice(-40)}`);
      assert.ok(slow === whole, format);
    }
    // The executed actions too: GOV-001 and GOV-003 fire on empty periodic data (alert_management).
    const actions = mica('audit', 'export', '--client', 'acme', '--actions', '--format', 'json');
    assert.equal(actions.code, 0, actions.err);
    const rows = actions.json() as Array<{ rule_id: string; action_type: string; outcome: string }>;
    assert.deepEqual(
      rows.map((r) => `${r.rule_id}:${r.action_type}:${r.outcome}`),
      Array(3)
        .fill(['MICA-GOV-001:alert_management:success', 'MICA-GOV-003:alert_management:success'])
        .flat(),
    );
    actionsThroughServer = actions.out;

    // Through the server too: an unknown client is an error, a known one verifies.
    for (const args of [
      ['audit', 'verify', '--client', 'nobody'],
      ['audit', 'export', '--client', 'nobody', '--format', 'json'],
      ['audit', 'checkpoints', '--client', 'nobody'],
    ])
      assertFails(mica(...args), /^client nobody not found$/, `through the server: ${args.join(' ')}`);
    const verified = mica('audit', 'verify', '--client', 'acme');
    assert.equal(verified.code, 0, verified.err);
    assert.equal(verified.json().ok, true);
    assert.equal(verified.json().rows_verified, 3);
    assertFails(
      mica('audit', 'export', '--client', 'acme', '--from', '2026-02-30'),
      /^Invalid request: from: /,
      'through the server: --from 2026-02-30',
    );

    const revoked = mica('keys', 'revoke', created.key_id);
    assert.equal(revoked.code, 0, revoked.err);
    const url = server.url;
    assert.equal(await statusOnceSeen(401, () => rulesWith(url, created.key)), 401);
    assert.equal(await evaluateWith(url, created.key, 'acme'), 401);
  });

  it('after a graceful stop the CLI opens the store itself again', async () => {
    assert.equal(await server!.stop('SIGTERM'), 0);
    server = undefined;
    const c = mica('clients', 'create', 'globex');
    assert.equal(c.code, 0, c.err);
    const json = mica('audit', 'export', '--client', 'acme', '--format', 'json', '--rule', 'MICA-GOV-001');
    assert.equal(json.code, 0, json.err);
    assert.equal(json.json().length, 3);
    const bad = mica('audit', 'export', '--client', 'acme', '--from', 'last-week');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /from/);
    // The same actions export on the store itself, byte for byte; and filtered by type as CSV.
    assert.equal(
      mica('audit', 'export', '--client', 'acme', '--actions', '--format', 'json').out,
      actionsThroughServer,
    );
    const csv = mica(
      'audit',
      'export',
      '--client',
      'acme',
      '--actions',
      '--action-type',
      'request_kyc',
      '--format',
      'csv',
    );
    assert.equal(csv.code, 0, csv.err);
    assert.equal(csv.out.trim(), ACTION_COLUMNS.join(','), 'no request_kyc in periodic evaluations');
    // Without --format, JSON, as every command prints (CONTRACT §1).
    const plain = mica('audit', 'export', '--client', 'acme', '--rule', 'MICA-GOV-001');
    assert.equal(plain.code, 0, plain.err);
    assert.deepEqual(plain.json(), JSON.parse(json.out));
    // A filter of actions without --actions is a usage error, not an export of every rule row.
    const stray = mica('audit', 'export', '--client', 'acme', '--action-type', 'create_case');
    assert.equal(stray.code, 1);
    assert.equal(stray.out, '');
    assert.match(stray.err, /give --actions with it/);
    // Commands of one client refuse one that does not exist, as every other one does.
    for (const args of [
      ['webhooks', 'list', '--client', 'nosuch'],
      ['officers', 'remove', 'nosuch', 'bob'],
    ]) {
      const r = mica(...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.err, /client nosuch not found/);
    }
  });

  it('reads a relative path from where npm was invoked (INIT_CWD), not the package directory', () => {
    // npm runs the CLI in the package directory (this test's working directory) and says in
    // INIT_CWD where the operator was.
    const home = mkdtempSync(join(tmpdir(), 'mica-operator-'));
    mkdirSync(join(home, 'imports'));
    writeFileSync(join(home, 'imports', 'casps.csv'), CASP_CSV);
    const r = micaWith({ INIT_CWD: home }, 'casps', 'import', 'imports/casps.csv');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.json().rows, 3);
    assert.equal(r.json().source, 'casps.csv');
    const dotted = micaWith({ INIT_CWD: join(home, 'imports') }, 'casps', 'import', './casps.csv');
    assert.equal(dotted.code, 0, dotted.err);
    // A missing file is reported where it was looked for.
    assertFails(
      micaWith({ INIT_CWD: home }, 'casps', 'import', 'nope.csv'),
      new RegExp(`cannot read ${join(home, 'nope.csv')}: ENOENT`),
      'missing relative file',
    );
    // An absolute path stays as it is, whatever INIT_CWD says.
    const absolute = micaWith({ INIT_CWD: tmpdir() }, 'casps', 'import', join(home, 'imports', 'casps.csv'));
    assert.equal(absolute.code, 0, absolute.err);
  });
});
