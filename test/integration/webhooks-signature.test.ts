import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { pino } from 'pino';
import { buildApp } from '../../src/app.ts';
import { clientWithKey, TEST_REDIS_URL, type TestApp } from '../helpers/harness.ts';
import { intakeCounts, register, signed, startWebhookApp, vendorBody } from '../helpers/webhooks.ts';

const SECRET = 'txmon-a-shared-secret-1';
const OTHER = 'globex-secret-for-txmon-a';
const nowS = () => Math.floor(Date.now() / 1000);

describe('webhook signatures', () => {
  let t: TestApp;
  let app: FastifyInstance;
  const logLines: Record<string, unknown>[] = [];
  before(async () => {
    t = await startWebhookApp();
    // A second app over the same deps, with a logger we can read: the security log line.
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        cb();
      },
    });
    app = await buildApp(t.deps, { logger: pino({ level: 'warn' }, sink) });
    await app.ready();
    await clientWithKey(t, 'acme');
    await clientWithKey(t, 'globex');
    await register(t, 'txmon-a', 'acme', SECRET);
    await register(t, 'txmon-a', 'globex', OTHER);
    await register(t, 'kyc', 'acme', 'kyc-secret-value');
    await register(t, 'screening', 'acme', 'screening-secret-value');
    await register(t, 'txmon-b', 'acme', 'txmon-b-secret-value');
  });
  after(async () => {
    await app.close();
    await t.close();
  });

  const send = (o: Parameters<typeof signed>) => app.inject(signed(...o));

  it('accepts a valid signature, with or without the sha256= prefix, on every kind', async () => {
    assert.equal((await send(['txmon-a', SECRET, vendorBody('txmon-a')])).statusCode, 200);
    assert.equal((await send(['txmon-a', SECRET, vendorBody('txmon-a'), { prefix: true }])).statusCode, 200);
    const upper = signed('txmon-a', SECRET, vendorBody('txmon-a'));
    const h = upper.headers as Record<string, string>;
    h['x-signature-256'] = h['x-signature-256']!.toUpperCase();
    assert.equal((await app.inject(upper)).statusCode, 200, 'hex case does not matter');
    assert.equal((await send(['txmon-b', 'txmon-b-secret-value', vendorBody('txmon-b')])).statusCode, 200);
    assert.equal((await send(['kyc', 'kyc-secret-value', vendorBody('kyc')])).statusCode, 200);
    assert.equal(
      (await send(['screening', 'screening-secret-value', vendorBody('screening')])).statusCode,
      200,
    );
  });

  it('the tenant is the registration whose secret verifies the body', async () => {
    const res = await send(['txmon-a', OTHER, vendorBody('txmon-a', { data: { severity: 'low' } })]);
    assert.equal(res.statusCode, 200, res.body);
    const alert = await t.deps.db
      .selectFrom('alerts')
      .select('client_id')
      .where('id', '=', res.json().platform_alert_id)
      .executeTakeFirstOrThrow();
    assert.equal(alert.client_id, 'globex');
  });

  it("refuses to register a secret another client holds, for any kind (its deliveries would be that client's)", async () => {
    await assert.rejects(register(t, 'txmon-a', 'globex', SECRET), /already registered for another client/);
    await assert.rejects(register(t, 'txmon-a', 'acme', OTHER), /already registered for another client/);
    // txmon-b signs as txmon-a does: the same secret there would take acme's txmon-a deliveries.
    await assert.rejects(
      register(t, 'txmon-b', 'globex', SECRET),
      /already registered for another client's txmon-a webhooks/,
    );
    await assert.rejects(register(t, 'screening', 'globex', SECRET), /already registered for another client/);
    // The same client may register it again (nothing added), and for another kind of its own.
    assert.equal(((await register(t, 'txmon-a', 'acme', SECRET)) as { added?: boolean }).added, false);
    await register(t, 'txmon-b', 'acme', SECRET);
    const res = await send(['txmon-a', SECRET, vendorBody('txmon-a', { data: { severity: 'low' } })]);
    assert.equal(res.statusCode, 200, res.body);
  });

  it('a secret shared before the check covered every kind: its holder may still repeat it', async () => {
    const { id: theirs } = await register(t, 'kyc', 'globex', 'globex-kyc-secret-value');
    const { id: mine } = await register(t, 'kyc', 'acme', 'acme-kyc-secret-value');
    // Registered when only the same kind was checked: globex's kyc also holds acme's kyc secret.
    await sql`INSERT INTO webhook_secrets (registration_id, fingerprint, sealed, created_by)
              SELECT ${theirs}, fingerprint, sealed, 'legacy' FROM webhook_secrets
               WHERE registration_id = ${mine}`.execute(t.deps.db);
    const again = await register(t, 'kyc', 'acme', 'acme-kyc-secret-value');
    assert.equal((again as { added?: boolean }).added, false);
  });

  it('refuses with 401 UNAUTHORIZED: wrong secret, missing or wrong header, tampered, truncated, empty', async () => {
    const body = vendorBody('txmon-a');
    const raw = JSON.stringify(body);
    const good = signed('txmon-a', SECRET, raw);
    const goodSig = (good.headers as Record<string, string>)['x-signature-256']!;
    const flipped = `${goodSig.slice(0, -1)}${goodSig.endsWith('0') ? '1' : '0'}`;
    const cases: [string, Parameters<typeof signed>][] = [
      ['wrong secret', ['txmon-a', 'not-the-secret', raw]],
      ['missing header', ['txmon-a', SECRET, raw, { header: null }]],
      ['wrong header', ['txmon-a', SECRET, raw, { header: 'x-hub-signature-256' }]],
      ['kind of another vendor', ['txmon-a', SECRET, raw, { header: 'x-screening-signature' }]],
      ['flipped hex digit', ['txmon-a', SECRET, raw, { signature: flipped }]],
      ['truncated signature', ['txmon-a', SECRET, raw, { signature: goodSig.slice(0, 32) }]],
      ['empty signature', ['txmon-a', SECRET, raw, { signature: '' }]],
      ['garbage', ['txmon-a', SECRET, raw, { signature: 'sha256=zz' }]],
    ];
    const before = await intakeCounts(t);
    for (const [name, args] of cases) {
      const res = await send(args);
      assert.equal(res.statusCode, 401, name);
      assert.deepEqual(res.json(), {
        error: { code: 'UNAUTHORIZED', message: 'Invalid or missing webhook signature' },
      });
    }
    // One byte of the body changed after signing.
    const tampered = signed('txmon-a', SECRET, raw);
    tampered.payload = raw.replace(body.id, `${body.id.slice(0, -1)}x`);
    assert.equal((await app.inject(tampered)).statusCode, 401, 'tampered body');
    assert.deepEqual(await intakeCounts(t), before, 'a refused delivery stores nothing');
  });

  it('writes one security log line per refusal: vendor, reason, ip; never the body or a secret', async () => {
    logLines.length = 0;
    const body = vendorBody('kyc', { data: { customer_id: 'secret-customer-name' } });
    await send(['kyc', 'wrong-kyc-secret', body]);
    const line = logLines.find((l) => l.msg === 'webhook signature rejected');
    assert.ok(line, JSON.stringify(logLines));
    assert.equal(line.vendor, 'kyc');
    assert.equal(line.reason, 'mismatch');
    assert.equal(line.ip, '127.0.0.1');
    const text = JSON.stringify(logLines);
    for (const s of ['secret-customer-name', 'kyc-secret-value', 'wrong-kyc-secret', body.id])
      assert.ok(!text.includes(s), `the log holds no ${s}`);
  });

  it('a correct signature over a body that is not JSON is a 400 BAD_REQUEST; a forged one stays 401', async () => {
    // The GitHub documentation's vector: its body is not JSON, so it verifies and then fails parsing.
    const gh = JSON.parse(
      readFileSync(new URL('../fixtures/webhooks/webhook_signature_vectors.json', import.meta.url), 'utf8'),
    ).github_x_hub_signature_256 as { secret: string; payload: string; expected_header: string };
    await register(t, 'screening', 'globex', gh.secret);
    const res = await app.inject({
      method: 'POST',
      url: '/api/webhooks/screening?client=globex',
      headers: { 'x-screening-signature': gh.expected_header },
      payload: gh.payload,
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'BAD_REQUEST');
    const forged = await app.inject({
      method: 'POST',
      url: '/api/webhooks/screening?client=globex',
      headers: { 'x-screening-signature': gh.expected_header },
      payload: '{not json',
    });
    assert.equal(forged.statusCode, 401);
  });

  it('empty and unicode bodies are verified over their exact bytes', async () => {
    const empty = await send(['txmon-a', SECRET, '']);
    assert.equal(empty.statusCode, 400, 'an empty body verifies, then is not a vendor body');
    const unicode = vendorBody('txmon-a', { data: { reason: 'Überweisung → 東京 🚀', severity: 'low' } });
    const res = await send(['txmon-a', SECRET, unicode]);
    assert.equal(res.statusCode, 200, res.body);
    const stored = await t.deps.db
      .selectFrom('webhook_deliveries')
      .select('raw_body')
      .where('delivery_id', '=', unicode.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.raw_body, JSON.stringify(unicode));
  });

  it('X-Signature-Timestamp: signed as <timestamp>.<body>, ±300 s', async () => {
    const ok = (ts: number) => send(['txmon-a', SECRET, vendorBody('txmon-a'), { timestamp: ts }]);
    assert.equal((await ok(nowS())).statusCode, 200);
    assert.equal((await ok(nowS() - 290)).statusCode, 200);
    assert.equal((await ok(nowS() + 290)).statusCode, 200);
    assert.equal((await ok(nowS() - 400)).statusCode, 401, 'stale');
    assert.equal((await ok(nowS() + 400)).statusCode, 401, 'future');
    // A signature over the body alone does not pass when a timestamp is sent.
    const raw = JSON.stringify(vendorBody('txmon-a'));
    const plain = signed('txmon-a', SECRET, raw);
    (plain.headers as Record<string, string>)['x-signature-timestamp'] = String(nowS());
    assert.equal((await app.inject(plain)).statusCode, 401);
    assert.equal((await send(['txmon-a', SECRET, raw, { timestamp: 'soon' }])).statusCode, 401);
  });

  it('rotation: every secret of a registration verifies until it is removed', async () => {
    const c = await clientWithKey(t, 'rotor');
    const first = await register(t, 'txmon-b', c.clientId, 'rotor-old-secret');
    const second = await register(t, 'txmon-b', c.clientId, 'rotor-new-secret');
    assert.equal(first.id, second.id, 'the same registration gains a secret');
    const withSecret = (s: string) => send(['txmon-b', s, vendorBody('txmon-b'), { client: 'rotor' }]);
    assert.equal((await withSecret('rotor-old-secret')).statusCode, 200);
    assert.equal((await withSecret('rotor-new-secret')).statusCode, 200);
    await t.deps.commands('webhooks.remove', { id: first.id, secret_fingerprint: first.fingerprint }, 'test');
    assert.equal((await withSecret('rotor-old-secret')).statusCode, 401);
    assert.equal((await withSecret('rotor-new-secret')).statusCode, 200);
  });

  it('?client= restricts verification to that client; an unknown client is a plain 401', async () => {
    assert.equal(
      (await send(['txmon-a', SECRET, vendorBody('txmon-a'), { client: 'acme' }])).statusCode,
      200,
    );
    assert.equal(
      (await send(['txmon-a', SECRET, vendorBody('txmon-a'), { client: 'globex' }])).statusCode,
      401,
    );
    assert.equal(
      (await send(['txmon-a', SECRET, vendorBody('txmon-a'), { client: 'nobody' }])).statusCode,
      401,
    );
  });

  it('a repeated ?client= is a 401 like any unverifiable delivery, signed or not', async () => {
    const body = JSON.stringify(vendorBody('txmon-a'));
    for (const headers of [{}, signed('txmon-a', SECRET, body).headers as Record<string, string>]) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/webhooks/txmon-a?client=acme&client=globex',
        headers: { 'content-type': 'application/json', ...headers },
        payload: body,
      });
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.json().error.code, 'UNAUTHORIZED');
    }
  });

  it('whatever the Content-Type (empty, absent, another type), the signature comes first: unsigned 401, signed 200', async () => {
    for (const type of [
      '',
      '   ',
      undefined,
      'text/plain',
      'application/xml',
      'foo',
      'application/',
      ';',
      'application/json, text/plain',
    ]) {
      const raw = JSON.stringify(vendorBody('txmon-a'));
      const good = signed('txmon-a', SECRET, raw);
      const headers = { ...(good.headers as Record<string, string>) };
      if (type === undefined) delete headers['content-type'];
      else headers['content-type'] = type;
      const unsigned = await app.inject({ ...good, headers: { ...headers, 'x-signature-256': 'wrong' } });
      assert.equal(unsigned.statusCode, 401, `${JSON.stringify(type)}: ${unsigned.body}`);
      const res = await app.inject({ ...good, headers });
      assert.equal(res.statusCode, 200, `${JSON.stringify(type)}: ${res.body}`);
      // The header is kept with the alert as it was sent.
      const stored = await t.deps.db
        .selectFrom('alerts')
        .select('headers')
        .where('id', '=', res.json().platform_alert_id)
        .executeTakeFirstOrThrow();
      assert.equal((stored.headers as Record<string, string>)['content-type'], type);
    }
  });

  it('a signed body sent with a Content-Encoding is a 400 BAD_REQUEST (not read as plain); unsigned stays 401', async () => {
    const raw = JSON.stringify(vendorBody('txmon-a'));
    const req = signed('txmon-a', SECRET, raw, { extraHeaders: { 'content-encoding': 'gzip' } });
    const res = await app.inject(req);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'BAD_REQUEST');
    const forged = signed('txmon-a', 'wrong-secret', raw, { extraHeaders: { 'content-encoding': 'gzip' } });
    assert.equal((await app.inject(forged)).statusCode, 401);
  });

  it('a signed body that is not UTF-8 is a 400, and nothing is stored', async () => {
    const id = `latin1-${Date.now()}`;
    const raw = Buffer.from(
      JSON.stringify(vendorBody('txmon-a', { id, data: { reason: 'a\u00ffb' } })).replace('\\u00ff', '\xff'),
      'latin1',
    );
    assert.ok(raw.includes(0xff));
    const res = await app.inject(signed('txmon-a', SECRET, raw));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'BAD_REQUEST');
    const stored = await t.deps.db
      .selectFrom('webhook_deliveries')
      .select('delivery_id')
      .where('delivery_id', '=', id)
      .execute();
    assert.equal(stored.length, 0);
  });

  it('property: any body signed with the right secret is accepted or refused with 400/409, never 5xx', async () => {
    const jsonish = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .record({
          id: fc.string(),
          event: fc.constantFrom('alert.created', 'alert.updated', 'x'),
          data: fc.jsonValue(),
        })
        .map((o) => JSON.stringify(o)),
      fc
        .record({
          id: fc.string({ minLength: 1 }),
          event: fc.constantFrom('alert.created', 'alert.updated'),
          created_at: fc.oneof(
            fc.string(),
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          ),
          data: fc.record(
            {
              alert_id: fc.oneof(fc.string(), fc.integer()),
              severity: fc.oneof(fc.constantFrom('low', 'high', 'critical'), fc.string()),
              risk_score: fc.oneof(fc.double(), fc.integer({ min: -10, max: 200 })),
              // Any UTF-16 code unit: NUL and lone surrogates included.
              customer_id: fc.string({
                unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
              }),
            },
            { requiredKeys: [] },
          ),
        })
        .map((o) => JSON.stringify(o)),
    );
    await fc.assert(
      fc.asyncProperty(jsonish, async (raw) => {
        const res = await send(['txmon-a', SECRET, raw]);
        assert.ok([200, 400, 409].includes(res.statusCode), `${res.statusCode} for ${raw}: ${res.body}`);
        if (res.statusCode !== 200) assert.match(res.json().error.code, /^(BAD_REQUEST|DUPLICATE_ALERT)$/);
      }),
      { numRuns: 150 },
    );
  });
});

describe('webhook rate limits', () => {
  let t: TestApp;
  before(async () => {
    // The webhook limits are deployment-wide counters: with Redis, a run a minute earlier would
    // still count against these, so this test starts from empty windows.
    if (TEST_REDIS_URL) {
      const redis = new Redis(TEST_REDIS_URL);
      const keys = await redis.keys('mica:rl:*:webhooks:*');
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    t = await startWebhookApp({
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '5',
      WEBHOOK_RATE_LIMIT_PER_KIND_PER_MINUTE: '3',
      WEBHOOK_UNVERIFIED_PER_MINUTE: '2',
    });
    await clientWithKey(t, 'acme');
    await register(t, 'txmon-a', 'acme', SECRET);
    await register(t, 'kyc', 'acme', 'kyc-secret');
  });
  after(() => t.close());

  it('refuses over the per-kind and the all-kinds limit with 429, Retry-After and retry_after', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await t.app.inject(signed('txmon-a', SECRET, vendorBody('txmon-a')))).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 429], 'per kind: 3 a minute');
    const res = await t.app.inject(signed('txmon-a', SECRET, vendorBody('txmon-a')));
    assert.equal(res.statusCode, 429);
    const b = res.json();
    assert.equal(b.error.code, 'RATE_LIMITED');
    assert.ok(b.error.details.retry_after >= 1 && b.error.details.retry_after <= 60);
    assert.equal(res.headers['retry-after'], String(b.error.details.retry_after));
    // Other kinds still pass until the all-kinds limit (5) is reached: the two txmon-a deliveries
    // their own kind's limit refused do not count against it (one vendor flooding must not starve
    // the others), and neither do forged ones (sent from elsewhere: see the next test).
    const forged = await t.app.inject({
      ...signed('kyc', 'unregistered', vendorBody('kyc')),
      remoteAddress: '192.0.2.50',
    });
    assert.equal(forged.statusCode, 401);
    const others: number[] = [];
    for (let i = 0; i < 3; i++)
      others.push((await t.app.inject(signed('kyc', 'kyc-secret', vendorBody('kyc')))).statusCode);
    assert.deepEqual(others, [200, 200, 429]);
  });

  it('forged deliveries count against their source only, and past its limit are refused unheard', async () => {
    const from = (remoteAddress: string, kind: 'kyc' | 'screening', secret = 'unregistered') =>
      t.app.inject({ ...signed(kind, secret, vendorBody(kind)), remoteAddress });
    const forger = '192.0.2.66';
    const first = await from(forger, 'kyc');
    assert.equal(first.statusCode, 401);
    assert.equal(first.headers['x-ratelimit-limit'], '2');
    assert.equal(first.headers['x-ratelimit-remaining'], '1');
    assert.equal((await from(forger, 'kyc')).statusCode, 401);
    const refused = await from(forger, 'kyc');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'RATE_LIMITED');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // Refused before its signature is checked: a correct one of that kind from there waits too,
    // with the source's limit in its headers, not a vendor's.
    const signedByForger = await from(forger, 'kyc', 'kyc-secret');
    assert.equal(signedByForger.statusCode, 429);
    assert.equal(signedByForger.headers['x-ratelimit-limit'], '2');
    // Counted per kind, and per source: another kind from there, or another address, is heard.
    assert.equal((await from(forger, 'screening')).statusCode, 401);
    assert.equal((await from('192.0.2.67', 'kyc')).statusCode, 401);
    // An IPv6 sender is one source across its /64.
    const v6 = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2::3'];
    assert.deepEqual(
      await Promise.all(v6.map(async (ip) => (await from(ip, 'kyc')).statusCode)).then((s) => s.sort()),
      [401, 401, 429],
    );
    // Counted when they arrive, not once their signatures are done: a crowd at once is no way round.
    const crowd = await Promise.all(Array.from({ length: 10 }, () => from('192.0.2.80', 'kyc')));
    assert.equal(crowd.filter((r) => r.statusCode === 401).length, 2);
    assert.equal(crowd.filter((r) => r.statusCode === 429).length, 8);
    // Verified deliveries are given back: a vendor's own traffic never uses up its source's limit.
    for (let i = 0; i < 4; i++)
      assert.notEqual((await from('192.0.2.90', 'kyc', 'kyc-secret')).statusCode, 401);
    assert.equal((await from('192.0.2.90', 'kyc')).statusCode, 401, 'still heard');
  });
});

describe('webhook sources behind a proxy, and what is given back', () => {
  let t: TestApp;
  before(async () => {
    if (TEST_REDIS_URL) {
      const redis = new Redis(TEST_REDIS_URL);
      const keys = await redis.keys('mica:rl:*:webhooks:unverified:*');
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    t = await startWebhookApp({ TRUST_PROXY: '127.0.0.1', WEBHOOK_UNVERIFIED_PER_MINUTE: '2' });
    await clientWithKey(t, 'acme');
    await register(t, 'txmon-a', 'acme', SECRET);
  });
  after(() => t.close());

  const via = (forwardedFor: string, opts: { secret?: string; body?: unknown } = {}) => {
    const req = signed('txmon-a', opts.secret ?? 'forged', opts.body ?? vendorBody('txmon-a'));
    return t.app.inject({ ...req, headers: { ...req.headers, 'x-forwarded-for': forwardedFor } });
  };

  it('a trusted proxy names the source; a name that is not an address counts as the proxy', async () => {
    assert.deepEqual(
      [await via('192.0.2.10'), await via('192.0.2.10'), await via('192.0.2.10')].map((r) => r.statusCode),
      [401, 401, 429],
    );
    assert.equal((await via('192.0.2.11')).statusCode, 401, 'another sender behind the same proxy');
    // Made-up names (a different one each time) do not escape the count, nor crash it.
    const madeUp = await Promise.all(
      ['forged-1', 'forged-2', '::1:2:3:4:5:6:7:8:9', 'forged-3'].map(async (f) => (await via(f)).statusCode),
    );
    assert.deepEqual(madeUp.sort(), [401, 401, 429, 429]);
    // A port after the address (some proxies add one) is the address.
    assert.deepEqual(
      [await via('192.0.2.12:5123'), await via('192.0.2.12:6001'), await via('192.0.2.12:7002')].map(
        (r) => r.statusCode,
      ),
      [401, 401, 429],
    );
  });

  it('a delivery whose sender gave up before its answer is given back all the same', async () => {
    const intake = t.deps.webhookIntake;
    const accept = intake.accept;
    // A slow store: the sender's client times out after sending the whole delivery.
    intake.accept = async (...args) => {
      await new Promise((r) => setTimeout(r, 300));
      return accept(...args);
    };
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      for (let i = 0; i < 3; i++) {
        const req = signed('txmon-a', SECRET, vendorBody('txmon-a'));
        const body = String(req.payload);
        const socket = net.connect(port, '127.0.0.1');
        await once(socket, 'connect');
        socket.write(
          `POST ${req.url} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Forwarded-For: 192.0.2.30\r\n` +
            `X-Signature-256: ${(req.headers as Record<string, string>)['x-signature-256']}\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        await delay(50);
        socket.destroy();
      }
      await delay(500);
    } finally {
      intake.accept = accept;
    }
    assert.equal((await via('192.0.2.30')).statusCode, 401, 'heard: the three were given back');
  });

  it('a delivery refused after its signature verified is given back, whatever refused it', async () => {
    const sender = '192.0.2.20';
    for (let i = 0; i < 4; i++) {
      const notJson = await via(sender, { secret: SECRET, body: '{"id": not json' });
      assert.equal(notJson.statusCode, 400);
    }
    assert.equal((await via(sender)).statusCode, 401, 'still heard: the four 400s were given back');
  });
});
