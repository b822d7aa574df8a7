import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { assertGapFreePerYear } from '../helpers/case-numbers.ts';
import { freshDatabase, TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/harness.ts';
import { type ServerProcess, startServerProcess, tempDataDir } from '../helpers/server-process.ts';

const shared = Boolean(TEST_DATABASE_URL && TEST_REDIS_URL);

function mica(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function call(url: string, key: string, path: string, body: unknown) {
  // A POST with a JSON body, as an integrator's client sends it.
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * Two instances on one PostgreSQL and one Redis behave as one service. On the embedded store the
 * same question has the opposite answer: a second process must not open the store at all.
 */
describe('several instances', () => {
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const s of servers) await s.stop('SIGKILL');
  });

  if (!shared) {
    it('embedded store: a second instance on the same data directory refuses to start', async () => {
      const dir = tempDataDir();
      servers.push(await startServerProcess({ MICA_DATA_DIR: dir, MICA_DEMO_SEED: 'false' }));
      await assert.rejects(
        startServerProcess({ MICA_DATA_DIR: dir, MICA_DEMO_SEED: 'false' }),
        /in use by process/,
      );
    });
    return;
  }

  const env = { DATABASE_URL: TEST_DATABASE_URL!, REDIS_URL: TEST_REDIS_URL!, MICA_DATA_DIR: tempDataDir() };
  const suffix = Date.now().toString(36);
  const multi = `multi-${suffix}`;
  const limited = `limited-${suffix}`;
  let a: ServerProcess;
  let b: ServerProcess;
  let key: string;
  let limitedKey: string;
  before(async () => {
    await (await freshDatabase()).close();
    mica(env, 'migrate');
    mica(env, 'clients', 'create', multi);
    mica(
      env,
      'clients',
      'create',
      limited,
      '--settings',
      '{"rate_limits":{"per_minute":6,"burst_per_minute":6}}',
    );
    mica(env, 'officers', 'add', multi, 'olga');
    mica(env, 'officers', 'add', multi, 'bruno');
    key = mica(env, 'keys', 'create', multi).key;
    limitedKey = mica(env, 'keys', 'create', limited).key;
    a = await startServerProcess({ ...env, MICA_DEMO_SEED: 'false' });
    b = await startServerProcess({ ...env, MICA_DEMO_SEED: 'false' });
    servers.push(a, b);
  });

  it('share the rate limits of a client', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`${i % 2 ? b.url : a.url}/api/mica/rules`, {
        headers: { authorization: `Bearer ${limitedKey}` },
      });
      statuses.push(res.status);
      if (i === 5) assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429], 'six in all across both, not six each');
  });

  it('a sandbox started on the same Redis counts its requests apart (CONTRACT §1: its own storage)', async () => {
    const client = `sbx-${suffix}`;
    const settings = '{"rate_limits":{"per_minute":6,"burst_per_minute":6}}';
    mica(env, 'clients', 'create', client, '--settings', settings);
    const liveKey = mica(env, 'keys', 'create', client).key as string;
    // The sandbox: its own embedded store, the same client id, the live service's Redis.
    const sandboxEnv = {
      DATABASE_URL: '',
      REDIS_URL: TEST_REDIS_URL!,
      MICA_DATA_DIR: tempDataDir(),
      MICA_ENVIRONMENT: 'sandbox',
    };
    mica(sandboxEnv, 'clients', 'create', client, '--settings', settings);
    const sandboxKey = mica(sandboxEnv, 'keys', 'create', client).key as string;
    assert.match(sandboxKey, /^mica_test_/);
    const sandbox = await startServerProcess({ ...sandboxEnv, MICA_DEMO_SEED: 'false' });
    servers.push(sandbox);
    const rules = (url: string, k: string) =>
      fetch(`${url}/api/mica/rules`, { headers: { authorization: `Bearer ${k}` } });
    assert.equal((await rules(a.url, liveKey)).headers.get('x-ratelimit-remaining'), '5');
    const sandboxStatuses: number[] = [];
    for (let i = 0; i < 7; i++) sandboxStatuses.push((await rules(sandbox.url, sandboxKey)).status);
    assert.deepEqual(sandboxStatuses, [200, 200, 200, 200, 200, 200, 429], 'six of its own');
    const live = await rules(b.url, liveKey);
    assert.equal(live.status, 200, 'testing on the sandbox never throttles live traffic');
    assert.equal(live.headers.get('x-ratelimit-remaining'), '4');
  });

  it('share the cache: a travel-rule validation made on one is a hit on the other', async () => {
    const body = {
      transfer_id: `tr-${suffix}`,
      direction: 'outbound',
      amount_eur: 500,
      originator: {
        name: 'Alice Example',
        wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
        national_id: 'X1',
      },
      beneficiary: { name: 'Bob Example', wallet_address: '0x8617E340B3D01FA5F11F306F4090FD50E238070D' },
    };
    const first = await call(a.url, key, '/api/mica/travel-rule-validation', body);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await call(b.url, key, '/api/mica/travel-rule-validation', body);
    assert.deepEqual(second.body, first.body);
    const stats = await fetch(`${b.url}/api/mica/cache/stats`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const s = (await stats.json()) as { travel_rule: { hit_rate: number; total_requests: number } };
    assert.equal(s.travel_rule.total_requests, 1);
    assert.equal(s.travel_rule.hit_rate, 1, 'the second instance answered from the shared cache');
  });

  it('number cases without gaps and keep one intact audit chain per client under concurrent writes', async () => {
    const n = 40;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call(i % 2 ? b.url : a.url, key, '/api/mica/evaluate', {
          client_id: multi,
          trigger_type: 'transaction',
          trigger_entity_id: `mi-${i}`,
          data: {
            customer_id: `c${i}`,
            customer_verified: true,
            amount_eur: 12_000,
            full_cdd_complete: true,
          },
        }),
      ),
    );
    assert.ok(results.every((r) => r.status === 200 && r.body.should_create_case === true));
    const cases = await fetch(`${a.url}/api/cases?limit=100`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const list = (await cases.json()) as { items: Array<{ case_number: string; assignee: string | null }> };
    assert.equal(list.items.length, n);
    assertGapFreePerYear(list.items.map((c) => c.case_number));
    const verify = mica(env, 'audit', 'verify', '--client', multi);
    assert.equal(verify.ok, true, JSON.stringify(verify));
    assert.equal(verify.rows_verified, n + 1);
  });
});
