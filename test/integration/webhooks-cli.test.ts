import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/storage/db.ts';
import { freshDatabase, TEST_DATABASE_URL } from '../helpers/harness.ts';
import {
  type ServerProcess,
  startServerProcess,
  statusOnceSeen,
  tempDataDir,
} from '../helpers/server-process.ts';
import { signed, vendorBody } from '../helpers/webhooks.ts';

const dataDir = tempDataDir();
const env = { MICA_DATA_DIR: dataDir, ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}) };
const SECRET_1 = 'cli-secret-number-one';
const SECRET_2 = 'cli-secret-number-two';

/** Runs `npm run mica -- …` the way an operator does (without npm's banner). */
function mica(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) };
}

async function deliver(server: ServerProcess, kind: 'txmon-a' | 'kyc', secret: string) {
  const req = signed(kind, secret, vendorBody(kind, { data: { severity: 'low' } }));
  const res = await fetch(`${server.url}${req.url}`, {
    method: 'POST',
    headers: req.headers as Record<string, string>,
    body: req.payload as string,
  });
  return res.status;
}

describe('webhooks and jobs through the CLI', () => {
  let server: ServerProcess | undefined;
  let registration: { id: string; fingerprint: string };
  before(async () => {
    if (TEST_DATABASE_URL) await (await freshDatabase()).close();
  });
  after(async () => {
    await server?.stop('SIGKILL');
  });

  it('webhooks add registers a kind for a client and never prints the secret; again adds a secret', () => {
    assert.equal(mica('migrate').code, 0);
    assert.equal(mica('clients', 'create', 'acme').code, 0);
    const add = mica('webhooks', 'add', 'txmon-a', '--client', 'acme', '--secret', SECRET_1);
    assert.equal(add.code, 0, add.err);
    assert.ok(!add.out.includes(SECRET_1));
    registration = add.json();
    assert.match(registration.id, /^whr_/);
    assert.match(registration.fingerprint, /^[0-9a-f]{16}$/);
    const again = mica('webhooks', 'add', 'txmon-a', '--client', 'acme', '--secret', SECRET_2);
    assert.equal(again.code, 0, again.err);
    assert.equal(again.json().id, registration.id);
    assert.equal(again.json().secrets.length, 2);
    const list = mica('webhooks', 'list', '--client', 'acme');
    assert.equal(list.code, 0);
    assert.ok(!list.out.includes(SECRET_1) && !list.out.includes(SECRET_2));
    assert.deepEqual(
      list.json().map((r: { kind: string }) => r.kind),
      ['txmon-a'],
    );
    if (!TEST_DATABASE_URL) {
      assert.ok(existsSync(`${dataDir}/secret.key`), 'the key file is made on first use');
      assert.equal(statSync(`${dataDir}/secret.key`).mode & 0o777, 0o600);
    }
    assert.equal(mica('webhooks', 'add', 'txmon-z', '--client', 'acme', '--secret', SECRET_1).code, 1);
    assert.equal(mica('webhooks', 'add', 'kyc', '--client', 'nobody', '--secret', SECRET_1).code, 1);
    assert.equal(mica('webhooks', 'add', 'kyc', '--client', 'acme', '--secret', '').code, 1);
    // The vendor picks the secret: a short one is taken, with a warning.
    const short = mica('webhooks', 'add', 'kyc', '--client', 'acme', '--secret', 'secret');
    assert.equal(short.code, 0, short.err);
    assert.match(short.json().warning, /shorter than 16 characters/);
    assert.equal(mica('webhooks', 'add', 'kyc', '--client', 'acme', '--secret', 'x'.repeat(513)).code, 1);
  });

  it('a running server verifies with the secrets the CLI stored, and takes new ones through its operator API', async () => {
    server = await startServerProcess({ ...env, MICA_DEMO_SEED: 'false' });
    assert.equal(await deliver(server, 'txmon-a', SECRET_1), 200);
    assert.equal(await deliver(server, 'txmon-a', SECRET_2), 200);
    assert.equal(await deliver(server, 'kyc', 'kyc-secret-added-live'), 401);
    const add = mica('webhooks', 'add', 'kyc', '--client', 'acme', '--secret', 'kyc-secret-added-live');
    assert.equal(add.code, 0, add.err);
    assert.equal(await statusOnceSeen(200, () => deliver(server!, 'kyc', 'kyc-secret-added-live')), 200);

    const removed = mica(
      'webhooks',
      'remove',
      registration.id,
      '--secret-fingerprint',
      registration.fingerprint,
    );
    assert.equal(removed.code, 0, removed.err);
    assert.equal(await statusOnceSeen(401, () => deliver(server!, 'txmon-a', SECRET_1)), 401);
    assert.equal(await deliver(server, 'txmon-a', SECRET_2), 200);
    assert.equal(mica('webhooks', 'remove', 'whr_nope').code, 1);

    const run = mica('jobs', 'run', 'str-sweep');
    assert.equal(run.code, 0, run.err);
    assert.equal(run.json().job, 'str-sweep');
    assert.deepEqual(run.json().evaluated, []);
  });

  it('without a server the CLI runs jobs on the store itself; unknown jobs fail', async () => {
    assert.equal(await server!.stop('SIGTERM'), 0);
    server = undefined;
    const run = mica('jobs', 'run', 'str-sweep');
    assert.equal(run.code, 0, run.err);
    assert.equal(run.json().failed, 0);
    const unknown = mica('jobs', 'run', 'nope');
    assert.equal(unknown.code, 1);
    assert.match(JSON.parse(unknown.err).error, /unknown job/);
    const whole = mica('webhooks', 'remove', registration.id);
    assert.equal(whole.code, 0, whole.err);
    assert.deepEqual(
      mica('webhooks', 'list')
        .json()
        .map((r: { kind: string }) => r.kind),
      ['kyc'],
    );

    // Every change is in the operator audit, with fingerprints and never a secret.
    const handle = TEST_DATABASE_URL
      ? await openDatabase({ databaseUrl: TEST_DATABASE_URL })
      : await openDatabase({ dataDir });
    try {
      const rows = await handle.db
        .selectFrom('operator_audit')
        .select(['action', 'detail'])
        .where('action', 'like', 'webhook.%')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.action),
        [
          'webhook.registered',
          'webhook.secret_added',
          'webhook.registered', // kyc, with the short secret
          'webhook.secret_added', // kyc, added while the server ran
          'webhook.secret_removed',
          'webhook.removed',
        ],
      );
      const text = JSON.stringify(rows);
      assert.ok(![SECRET_1, SECRET_2, 'kyc-secret-added-live'].some((s) => text.includes(s)));
      const sealed = await handle.db.selectFrom('webhook_secrets').select('sealed').execute();
      assert.ok(sealed.every((s) => s.sealed.startsWith('v1.') && !s.sealed.includes('kyc-secret')));
    } finally {
      await handle.close();
    }
  });
});
