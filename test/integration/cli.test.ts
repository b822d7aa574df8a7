import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { freshDatabase, TEST_DATABASE_URL } from '../helpers/harness.ts';
import {
  type ServerProcess,
  startServerProcess,
  statusOnceSeen,
  tempDataDir,
} from '../helpers/server-process.ts';

const dataDir = tempDataDir();
const env = { MICA_DATA_DIR: dataDir, ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}) };

/** Runs `npm run mica -- …` the way an operator does (without npm's banner). */
function mica(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) };
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
  });

  it('prints errors as JSON on stderr with exit code 1', () => {
    const dup = mica('clients', 'create', 'acme');
    assert.equal(dup.code, 1);
    assert.match(JSON.parse(dup.err).error, /already exists/);
    const unknownClient = mica('keys', 'create', 'nobody');
    assert.equal(unknownClient.code, 1);
    const badRole = mica('keys', 'create', 'acme', '--role', 'root');
    assert.equal(badRole.code, 1);
    const badSettings = mica('clients', 'settings', 'acme', '{"thresholds":{"cdd_amount_eur":-1}}');
    assert.equal(badSettings.code, 1);
    assert.equal(mica('nonsense').code, 1);
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
  });
});
