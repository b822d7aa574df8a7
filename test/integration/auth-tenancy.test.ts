import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { AppError } from '../../src/errors.ts';
import { isLoopback } from '../../src/http/plugins/auth.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

const body = (client_id: string) => ({
  client_id,
  trigger_type: 'transaction',
  data: { customer_verified: true, amount_eur: 10, full_cdd_complete: true },
});

function assertNested(
  res: { statusCode: number; json: () => Record<string, unknown> },
  status: number,
  code: string,
) {
  assert.equal(res.statusCode, status);
  const b = res.json() as { error: { code: string; message: string } };
  assert.equal(b.error.code, code);
  assert.equal(typeof b.error.message, 'string');
}

describe('authentication and tenancy', () => {
  let t: TestApp;
  let acme: Awaited<ReturnType<typeof clientWithKey>>;
  before(async () => {
    t = await startTestApp();
    acme = await clientWithKey(t, 'acme');
    await clientWithKey(t, 'globex');
  });
  after(() => t.close());

  const post = (headers: Record<string, string>, payload: unknown = body('acme')) =>
    t.app.inject({ method: 'POST', url: '/api/mica/evaluate', headers, payload: payload as object });

  it('401 without a key, with a malformed header, or with a wrong key', async () => {
    assertNested(await post({}), 401, 'UNAUTHORIZED');
    assertNested(await post({ authorization: 'Basic abc' }), 401, 'UNAUTHORIZED');
    assertNested(await post({ authorization: `Bearer ${acme.key}x` }), 401, 'UNAUTHORIZED');
    assertNested(await post({ authorization: 'Bearer mica_live_nope' }), 401, 'UNAUTHORIZED');
  });

  it('authenticates before reading the body: no validation details for strangers', async () => {
    const res = await post({}, { nonsense: true });
    assertNested(res, 401, 'UNAUTHORIZED');
  });

  it('401 for a revoked key and for an expired key', async () => {
    const k = await clientWithKey(t, 'acme');
    assert.equal((await post(k.auth)).statusCode, 200);
    await t.deps.keys.revoke(k.keyId, 'test');
    assertNested(await post(k.auth), 401, 'UNAUTHORIZED');

    const e = await clientWithKey(t, 'acme');
    await sql`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE key_id = ${e.keyId}`.execute(
      t.deps.db,
    );
    assertNested(await post(e.auth), 401, 'UNAUTHORIZED');
  });

  it('rotation: the new key works and the old one lives only for the grace period', async () => {
    const k = await clientWithKey(t, 'acme');
    const rotated = await t.deps.keys.rotate(k.keyId, 'test');
    assert.equal((await post({ authorization: `Bearer ${rotated.key}` })).statusCode, 200);
    assert.equal((await post(k.auth)).statusCode, 200);
    const row = await t.deps.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_id', '=', k.keyId)
      .executeTakeFirstOrThrow();
    const graceMs = new Date(row.expires_at).getTime() - Date.now();
    assert.ok(graceMs > 23 * 3600_000 && graceMs <= 24 * 3600_000, `grace ${graceMs}`);
    assert.equal(row.replaced_by, rotated.key_id);
  });

  it("rotation gives the new key the old one's issued lifetime, or the days asked for", async () => {
    const short = await t.deps.keys.create('acme', { actor: 'test', expiresInDays: 30 });
    const days = (iso: string) => (new Date(iso).getTime() - Date.now()) / 86_400_000;
    const next = await t.deps.keys.rotate(short.key_id, 'test');
    assert.ok(Math.abs(days(next.expires_at) - 30) < 0.01, `30 days, not the default 90: ${next.expires_at}`);
    const asked = await t.deps.keys.rotate(next.key_id, 'test', 24, 7);
    assert.ok(Math.abs(days(asked.expires_at) - 7) < 0.01, asked.expires_at);
    await assert.rejects(t.deps.keys.rotate(asked.key_id, 'test', 24, 0), /between 1 and 3650/);
  });

  it('rotation reports the old key’s real expiry, and refuses expired, revoked and rotated keys', async () => {
    const expiryOf = async (keyId: string) =>
      new Date(
        (
          await t.deps.db
            .selectFrom('api_keys')
            .select('expires_at')
            .where('key_id', '=', keyId)
            .executeTakeFirstOrThrow()
        ).expires_at,
      ).toISOString();
    const keyCount = async () => (await t.deps.db.selectFrom('api_keys').select('key_id').execute()).length;

    // A key with an hour left keeps its hour, and that is what the rotation reports.
    const soon = await clientWithKey(t, 'acme');
    await sql`UPDATE api_keys SET expires_at = now() + interval '1 hour' WHERE key_id = ${soon.keyId}`.execute(
      t.deps.db,
    );
    const before = await expiryOf(soon.keyId);
    const rotated = await t.deps.keys.rotate(soon.keyId, 'test');
    assert.equal(rotated.old_key_expires_at, before);
    assert.equal(await expiryOf(soon.keyId), before);

    // Rotated once: a second rotation would leave two successors.
    const count = await keyCount();
    await assert.rejects(t.deps.keys.rotate(soon.keyId, 'test'), /already rotated \(replaced by key_/);
    // Expired and revoked keys no longer authenticate; nothing is minted from them.
    const expired = await clientWithKey(t, 'acme');
    await sql`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE key_id = ${expired.keyId}`.execute(
      t.deps.db,
    );
    await assert.rejects(t.deps.keys.rotate(expired.keyId, 'test'), /has expired/);
    const revoked = await clientWithKey(t, 'acme');
    await t.deps.keys.revoke(revoked.keyId, 'test');
    await assert.rejects(t.deps.keys.rotate(revoked.keyId, 'test'), /is revoked/);
    assert.equal(await keyCount(), count + 2, 'only the two keys made for the test were added');

    // Two rotations of one key at once: one wins, the other is refused; one successor.
    const raced = await clientWithKey(t, 'acme');
    const beforeRace = await keyCount();
    const outcomes = await Promise.allSettled([
      t.deps.keys.rotate(raced.keyId, 'a'),
      t.deps.keys.rotate(raced.keyId, 'b'),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
    assert.equal(await keyCount(), beforeRace + 1);
    const row = await t.deps.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_id', '=', raced.keyId)
      .executeTakeFirstOrThrow();
    const winner = outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{
      key_id: string;
    }>;
    assert.equal(row.replaced_by, winner.value.key_id);
  });

  it('stores keys only as SHA-256 digests and audits every lifecycle event', async () => {
    const k = await clientWithKey(t, 'acme');
    const rows = await t.deps.db.selectFrom('api_keys').selectAll().execute();
    assert.ok(rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_hash)));
    assert.ok(!JSON.stringify(rows).includes(k.key));
    await t.deps.keys.rotate(k.keyId, 'ops-1');
    await t.deps.keys.revoke(k.keyId, 'ops-2');
    const events = await t.deps.operatorAudit.list({ subject: k.keyId });
    assert.deepEqual(
      events.map((e) => [e.action, e.actor]),
      [
        ['key.created', 'test'],
        ['key.rotated', 'ops-1'],
        ['key.revoked', 'ops-2'],
      ],
    );
  });

  it('an officer key is issued only for an officer of the client', async () => {
    await assert.rejects(
      t.deps.keys.create('acme', { officer: 'nobody', actor: 'test' }),
      (e: AppError) => e.code === 'INVALID_REQUEST' && /nobody is not an officer of acme/.test(e.message),
    );
    await t.deps.clients.addOfficer('globex', 'nobody', 'test');
    await assert.rejects(t.deps.keys.create('acme', { officer: 'nobody', actor: 'test' }), /not an officer/);
    await t.deps.clients.addOfficer('acme', 'nobody', 'test');
    const k = await t.deps.keys.create('acme', { officer: 'nobody', actor: 'test' });
    assert.equal(k.officer, 'nobody');
    // Not removed while a key of theirs works; once it is revoked, they may go.
    await assert.rejects(
      t.deps.clients.removeOfficer('acme', 'nobody', 'test'),
      (e: AppError) => e.code === 'INVALID_REQUEST' && e.message.includes(k.key_id),
    );
    await t.deps.keys.revoke(k.key_id, 'test');
    await t.deps.clients.removeOfficer('acme', 'nobody', 'test');
    // A key whose officer was removed some other way (a store from before this rule) is not rotated.
    await t.deps.clients.addOfficer('acme', 'leaver', 'test');
    const leaver = await t.deps.keys.create('acme', { officer: 'leaver', actor: 'test' });
    await sql`DELETE FROM compliance_officers WHERE client_id = 'acme' AND officer = 'leaver'`.execute(
      t.deps.db,
    );
    await assert.rejects(t.deps.keys.rotate(leaver.key_id, 'test'), /no longer an officer of acme/);
  });

  it('a sandbox key is refused by the live service', async () => {
    const sandbox = await clientWithKey(t, 'acme', { sandbox: true });
    assert.ok(sandbox.key.startsWith('mica_test_'));
    assertNested(await post(sandbox.auth), 401, 'UNAUTHORIZED');
  });

  it('404 CLIENT_NOT_FOUND for an unknown client and for a client the key does not own, alike', async () => {
    const foreign = await post(acme.auth, body('globex'));
    const unknown = await post(acme.auth, body('no-such-client'));
    assertNested(foreign, 404, 'CLIENT_NOT_FOUND');
    assertNested(unknown, 404, 'CLIENT_NOT_FOUND');
    const strip = (s: string) => s.replaceAll('globex', 'X').replaceAll('no-such-client', 'X');
    assert.equal(strip(foreign.body), strip(unknown.body));
    const count = await t.deps.db
      .selectFrom('evaluations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', 'globex')
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });

  it('the operator API refuses client keys, admin or not', async () => {
    const admin = await clientWithKey(t, 'acme', { role: 'admin' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/commands/clients.create',
      headers: admin.auth,
      payload: { args: { client_id: 'evil' } },
    });
    assertNested(res, 401, 'UNAUTHORIZED');
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/admin/commands/clients.create',
      headers: { authorization: `Bearer ${t.deps.operatorToken()}` },
      payload: { args: { client_id: 'initech' } },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().result.client_id, 'initech');
  });

  it('the operator API answers only on the loopback interface, token or not', async () => {
    const command = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/admin/commands/clients.create',
        headers: { authorization: `Bearer ${t.deps.operatorToken()}` },
        payload: { args: { client_id: `from-${remoteAddress.replace(/\W/g, '-')}` } },
        remoteAddress,
      });
    for (const remote of ['192.0.2.7', '10.0.0.1', '::ffff:192.0.2.7', '2001:db8::1'])
      assertNested(await command(remote), 403, 'FORBIDDEN');
    for (const local of ['127.0.0.1', '127.9.8.7', '::1', '::ffff:127.0.0.1'])
      assert.equal((await command(local)).statusCode, 200, local);
    // Relayed by a proxy (which may run on this machine): not local, whatever the peer.
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const relayed = await t.app.inject({
        method: 'POST',
        url: '/api/admin/commands/clients.create',
        headers: { authorization: `Bearer ${t.deps.operatorToken()}`, [header]: '192.0.2.7' },
        payload: { args: { client_id: `relayed-${header}` } },
      });
      assertNested(relayed, 403, 'FORBIDDEN');
    }
    assert.equal(isLoopback(undefined), false);
    assert.equal(isLoopback('127.0.0.1.evil'), false);
  });
});

describe('sandbox service', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ MICA_ENVIRONMENT: 'sandbox' });
  });
  after(() => t.close());

  it('accepts only mica_test_ keys', async () => {
    const live = await clientWithKey(t, 'acme');
    const sandbox = await clientWithKey(t, 'acme', { sandbox: true });
    const post = (h: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/api/mica/evaluate', headers: h, payload: body('acme') });
    assert.equal((await post(live.auth)).statusCode, 401);
    assert.equal((await post(sandbox.auth)).statusCode, 200);
  });
});
