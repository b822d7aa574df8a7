import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { type DatabaseHandle, openDatabase } from '../../src/storage/db.ts';
import { migrateToLatest } from '../../src/storage/migrations/index.ts';
import { waitForDatabase } from '../../src/storage/wait-for-database.ts';
import { freshDatabase, TEST_DATABASE_URL, TEST_REDIS_URL, type TestApp } from '../helpers/harness.ts';
import { hostPort, startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { completeBody, ETH, importTestDirectory, uniqueClientId } from '../helpers/travel-rule.ts';

interface Outcome {
  phase: 'before' | 'outage' | 'after';
  status: number;
  body: string;
  retryAfter: string | undefined;
  ms: number;
}

const until = async (what: string, done: () => boolean | Promise<boolean>, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/**
 * The service loses PostgreSQL and Redis in the middle of traffic and gets them back. The real
 * servers stay up (others use them): a TCP proxy between the app and each server is cut (every
 * connection reset, new ones refused) and restored.
 */
describe('faults against the real servers', { skip: !(TEST_DATABASE_URL && TEST_REDIS_URL) }, () => {
  let pg: TcpProxy;
  let redis: TcpProxy;
  let owner: DatabaseHandle;
  let t: TestApp;
  const logs: Array<{ level: number; msg: string }> = [];
  let clientId: string;
  let auth: Record<string, string>;

  before(async () => {
    pg = await startTcpProxy(hostPort(TEST_DATABASE_URL!));
    redis = await startTcpProxy(hostPort(TEST_REDIS_URL!));
    owner = await freshDatabase();
    await migrateToLatest(owner.db);
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        cb();
      },
    });
    const logger = pino({ level: 'warn' }, sink);
    const config = loadConfig({
      MICA_DEMO_SEED: 'false',
      LOG_LEVEL: 'warn',
      // Every request asks the database for its key: the outage cannot hide behind a cache.
      AUTH_CACHE_MS: '0',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_BURST_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_DAY: '100000000',
      DATABASE_URL: pg.via(TEST_DATABASE_URL!),
      REDIS_URL: redis.via(TEST_REDIS_URL!),
    });
    const database = await openDatabase({ databaseUrl: config.DATABASE_URL, poolSize: 5 });
    const deps = await createDeps(config, { database, logger });
    const app = await buildApp(deps, { logger });
    await app.ready();
    t = {
      app,
      deps,
      config,
      close: async () => {
        await app.close();
        await deps.close();
      },
    };
    clientId = uniqueClientId('faults');
    await deps.clients.create(clientId, { actor: 'test' });
    auth = { authorization: `Bearer ${(await deps.keys.create(clientId, { actor: 'test' })).key}` };
    await importTestDirectory(t);
  });
  after(async () => {
    pg?.restore();
    redis?.restore();
    await t?.close();
    await owner?.close();
    await pg?.close();
    await redis?.close();
  });

  let seq = 0;
  const evaluate = () =>
    t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: auth,
      payload: {
        client_id: clientId,
        trigger_type: 'transaction',
        trigger_entity_id: `fault-${seq++}`,
        data: { customer_id: `c${seq % 7}`, customer_verified: true, amount_eur: 2_000 + (seq % 5) * 3_000 },
      },
    });
  const ready = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    return { status: res.statusCode, body: res.json() as { status: string; checks: Record<string, string> } };
  };
  const metric = async (name: string) => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  /** Four callers sending evaluations back to back until stopped. */
  function load() {
    const outcomes: Outcome[] = [];
    let phase: Outcome['phase'] = 'before';
    let stop = false;
    const workers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const started = performance.now();
        const res = await evaluate();
        outcomes.push({
          phase,
          status: res.statusCode,
          body: res.body,
          retryAfter: res.headers['retry-after'] as string | undefined,
          ms: performance.now() - started,
        });
        // A refused request comes back at once; do not spin the event loop while the store is away.
        if (res.statusCode !== 200) await new Promise((r) => setTimeout(r, 20));
      }
    });
    const count = (p: Outcome['phase'], status: number) =>
      outcomes.filter((o) => o.phase === p && o.status === status).length;
    return {
      outcomes,
      count,
      setPhase: (p: Outcome['phase']) => {
        phase = p;
      },
      stop: async () => {
        stop = true;
        await Promise.all(workers);
      },
    };
  }

  it('PostgreSQL lost: 503 in the documented format, no 200 lost, /readyz says so, recovers by itself', async () => {
    const traffic = load();
    await until('evaluations before the outage', () => traffic.count('before', 200) >= 20);

    pg.cut();
    traffic.setPhase('outage');
    await until('503s during the outage', () => traffic.count('outage', 503) >= 20);
    const down = await ready();
    assert.equal(down.status, 503);
    assert.equal(down.body.status, 'not_ready');
    assert.equal(down.body.checks.database, 'unavailable');

    const acceptedBefore = pg.accepted();
    pg.restore();
    traffic.setPhase('after');
    await until('evaluations after the outage', () => traffic.count('after', 200) >= 20);
    await traffic.stop();
    assert.ok(pg.accepted() > acceptedBefore, 'the pool reconnected through the proxy');
    const up = await ready();
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.checks.database, 'ok');

    const statuses = new Set(traffic.outcomes.map((o) => o.status));
    assert.deepEqual([...statuses].sort(), [200, 503], 'only 200 and 503, never a 500');
    for (const o of traffic.outcomes.filter((x) => x.status === 503)) {
      const body = JSON.parse(o.body);
      assert.deepEqual(Object.keys(body), ['error']);
      assert.equal(body.error.code, 'SERVICE_UNAVAILABLE');
      assert.equal(typeof body.error.message, 'string');
      assert.deepEqual(body.error.details, { vendor: 'database', breaker_state: 'OPEN', retry_after: 5 });
      assert.doesNotMatch(o.body, /\bat .+:\d+:\d+|stack|SELECT|INSERT|ECONN|terminated/i);
      assert.equal(o.retryAfter, '5');
    }
    // Every evaluation answered 200 is in the audit store (read directly, not through the proxy).
    const ok = traffic.outcomes.filter((o) => o.status === 200).map((o) => JSON.parse(o.body).evaluation_id);
    const stored = await sql<{ id: string }>`
      SELECT evaluation_id::text AS id FROM evaluations WHERE evaluation_id = ANY(${ok}::uuid[])`.execute(
      owner.db,
    );
    const missing = ok.filter((id) => !stored.rows.some((r) => r.id === id));
    assert.deepEqual(missing, [], 'every 200 has its audit row');
    const verified = await t.deps.auditChain.verify(clientId);
    assert.equal(verified.ok, true, JSON.stringify(verified));
    const slowest = Math.max(...traffic.outcomes.map((o) => o.ms));
    const counts = ['before', 'outage', 'after'].map(
      (p) => `${p}: ${traffic.outcomes.filter((o) => o.phase === p).length}`,
    );
    process.stdout.write(`# pg fault: ${counts.join(', ')}; slowest ${slowest.toFixed(0)} ms\n`);
  });

  it('Redis lost: rate limits fall back in process, caches miss, requests succeed, both resume', async () => {
    const validate = (transferId: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/mica/travel-rule-validation',
        headers: auth,
        payload: completeBody(transferId),
      });
    const screen = () =>
      t.app.inject({
        method: 'GET',
        url: `/api/mica/wallet-screening?wallet_address=${ETH}&blockchain=ethereum`,
        headers: auth,
      });
    const stats = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/mica/cache/stats', headers: auth })).json() as Record<
        'wallet_screening' | 'travel_rule',
        { hit_rate: number; total_requests: number }
      >;
    // Warm the shared cache.
    assert.equal((await validate('tr-fault-1')).statusCode, 200);
    assert.equal((await screen()).statusCode, 200);
    const fallbacksBefore = await metric('mica_rate_limit_fallback_total');

    redis.cut();
    const traffic = load();
    traffic.setPhase('outage');
    await until('evaluations during the Redis outage', () => traffic.count('outage', 200) >= 30);
    const tr = await validate('tr-fault-1');
    assert.equal(tr.statusCode, 200, tr.body);
    const ws = await screen();
    assert.equal(ws.statusCode, 200, ws.body);
    // The cache's own size cannot be read: the statistics endpoint says so in its (flat) format.
    const statsDuring = await t.app.inject({ method: 'GET', url: '/api/mica/cache/stats', headers: auth });
    assert.equal(statsDuring.statusCode, 503, statsDuring.body);
    assert.deepEqual(Object.keys(statsDuring.json()).sort(), ['details', 'error', 'statusCode', 'type']);
    assert.deepEqual(statsDuring.json().details, { vendor: 'redis', breaker_state: 'OPEN', retry_after: 5 });
    // It names the cache, not the database, as what is away.
    assert.equal(statsDuring.json().error, 'The shared cache (Redis) is unavailable; retry later');
    const degraded = await ready();
    assert.equal(degraded.status, 200, 'a lost cache degrades the service; it does not take it out');
    assert.equal(degraded.body.status, 'degraded');
    assert.equal(degraded.body.checks.cache, 'unavailable');
    assert.equal(degraded.body.checks.database, 'ok');
    assert.ok((await metric('mica_rate_limit_fallback_total')) > fallbacksBefore, 'fallback counted');
    assert.ok(
      logs.some((l) => l.msg === 'rate limiter store failed; limiting in process'),
      'fallback logged',
    );
    // The in-process fallback limits rather than letting everything through.
    const limited = uniqueClientId('faults-limited');
    await t.deps.clients.create(limited, {
      actor: 'test',
      settings: { rate_limits: { per_minute: 5, burst_per_minute: 5 } },
    });
    const limitedAuth = {
      authorization: `Bearer ${(await t.deps.keys.create(limited, { actor: 'test' })).key}`,
    };
    const codes: number[] = [];
    for (let i = 0; i < 6; i++)
      codes.push(
        (await t.app.inject({ method: 'GET', url: '/api/mica/rules', headers: limitedAuth })).statusCode,
      );
    assert.deepEqual(codes, [200, 200, 200, 200, 200, 429]);

    redis.restore();
    traffic.setPhase('after');
    await until('the shared cache answers again', async () => (await ready()).body.status === 'ready');
    await until('evaluations after the outage', () => traffic.count('after', 200) >= 20);
    await traffic.stop();
    assert.deepEqual(
      [...new Set(traffic.outcomes.map((o) => o.status))],
      [200],
      'every request succeeded through the outage',
    );
    // Rate limits are shared again: no fallback while Redis answers.
    const fallbacksAfter = await metric('mica_rate_limit_fallback_total');
    for (let i = 0; i < 5; i++) assert.equal((await evaluate()).statusCode, 200);
    assert.equal(await metric('mica_rate_limit_fallback_total'), fallbacksAfter);
    // The repeated validation and screening during the outage were misses, not failures.
    const s = await stats();
    assert.deepEqual(
      [
        s.travel_rule.total_requests,
        s.travel_rule.hit_rate,
        s.wallet_screening.total_requests,
        s.wallet_screening.hit_rate,
      ],
      [2, 0, 2, 0],
    );
    // The cache is written and read again: a new body is a miss, then a hit.
    const before = (await stats()).travel_rule;
    assert.equal((await validate('tr-fault-2')).statusCode, 200);
    assert.equal((await validate('tr-fault-2')).statusCode, 200);
    const afterStats = (await stats()).travel_rule;
    assert.equal(afterStats.total_requests, before.total_requests + 2);
    assert.ok(
      afterStats.hit_rate * afterStats.total_requests - before.hit_rate * before.total_requests > 0.5,
      'the second validation was a cache hit',
    );
    const slowest = Math.max(...traffic.outcomes.filter((o) => o.phase === 'outage').map((o) => o.ms));
    process.stdout.write(`# redis fault: slowest evaluation during the outage ${slowest.toFixed(0)} ms\n`);
  });

  it('Redis frozen on an open connection: after one timeout no request waits on it, and it is used again once it answers', async () => {
    // A stopped or partitioned Redis keeps the connection open; every command used to wait for its
    // whole timeout, a second or more per request for the whole outage.
    redis.freeze();
    try {
      // The first request's commands time out and mark Redis as not answering.
      assert.equal((await evaluate()).statusCode, 200);
      await until(
        'readiness reports the cache away',
        async () => (await ready()).body.checks.cache === 'unavailable',
      );
      const heldBefore = redis.heldFromClients().length;
      for (let i = 0; i < 20; i++) assert.equal((await evaluate()).statusCode, 200);
      const sent = redis
        .heldFromClients()
        .slice(heldBefore)
        .filter((chunk) => !/^\*1\r\n\$4\r\nPING\r\n$/i.test(chunk));
      assert.deepEqual(sent, [], 'nothing but the probe was sent to the frozen Redis');
    } finally {
      redis.thaw();
    }
    await until('the cache answers again', async () => (await ready()).body.status === 'ready');
    const fallbacks = await metric('mica_rate_limit_fallback_total');
    for (let i = 0; i < 5; i++) assert.equal((await evaluate()).statusCode, 200);
    assert.equal(await metric('mica_rate_limit_fallback_total'), fallbacks, 'limits are shared again');
  });
});

describe('an instance started while PostgreSQL is away', { skip: !TEST_DATABASE_URL }, () => {
  it('waits for it and starts when it is back; a database that refuses the login is not waited on', async () => {
    const proxy = await startTcpProxy(hostPort(TEST_DATABASE_URL!));
    try {
      proxy.cut();
      const said: string[] = [];
      const log = {
        warn: (_o: object, msg: string) => said.push(msg),
        info: (_o: object, msg: string) => said.push(msg),
      };
      let started = false;
      const waiting = waitForDatabase(proxy.via(TEST_DATABASE_URL!), log, { retryMs: 100 }).then(() => {
        started = true;
      });
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(started, false, 'still waiting while the database is away');
      assert.ok(said.includes('database unreachable at start: waiting for it'), said.join('; '));
      proxy.restore();
      await waiting;
      assert.ok(said.includes('database reachable: starting'));
      const wrongDatabase = new URL(TEST_DATABASE_URL!);
      wrongDatabase.pathname = '/no_such_database_here';
      await assert.rejects(waitForDatabase(wrongDatabase.href, log, { retryMs: 100 }), /does not exist/);
    } finally {
      await proxy.close();
    }
  });
});
