import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  createSecretBox,
  lazySecretBox,
  parseMasterKey,
  SecretKeyError,
} from '../../../src/services/secret-box.ts';
import { type DatabaseHandle, openDatabase } from '../../../src/storage/db.ts';
import { migrateToLatest } from '../../../src/storage/migrations/index.ts';
import { tempDataDir } from '../../helpers/server-process.ts';

describe('secret box (webhook secrets at rest)', () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);
  let handle: DatabaseHandle;
  before(async () => {
    handle = await openDatabase({ dataDir: 'memory://' });
    await migrateToLatest(handle.db);
  });
  after(() => handle.close());

  it('seals with AES-256-GCM: round trip, random IV, bound to its row', () => {
    const a = box.seal('vendor secret ✓', 'whr_1');
    const b = box.seal('vendor secret ✓', 'whr_1');
    assert.notEqual(a, b, 'a fresh IV each time');
    assert.ok(!a.includes('vendor'));
    assert.equal(box.open(a, 'whr_1'), 'vendor secret ✓');
    assert.throws(() => box.open(a, 'whr_2'), SecretKeyError, 'moved to another registration');
    const [v, id, iv, ct, tag] = a.split('.');
    const flipped = Buffer.from(ct!, 'base64url');
    flipped[0]! ^= 1;
    assert.throws(
      () => box.open([v, id, iv, flipped.toString('base64url'), tag].join('.'), 'whr_1'),
      SecretKeyError,
    );
  });

  it('names the key: a value sealed under another key is reported as such', () => {
    const other = createSecretBox(randomBytes(32));
    assert.throws(() => other.open(box.seal('s', 'r'), 'r'), /sealed under key [0-9a-f]{8}/);
  });

  it('fingerprints are keyed, stable and short', () => {
    assert.equal(box.fingerprint('abc'), box.fingerprint('abc'));
    assert.notEqual(box.fingerprint('abc'), box.fingerprint('abd'));
    assert.notEqual(box.fingerprint('abc'), createSecretBox(randomBytes(32)).fingerprint('abc'));
    assert.match(box.fingerprint('abc'), /^[0-9a-f]{16}$/);
  });

  it('takes the key as 64 hex digits or base64, and nothing else', () => {
    assert.deepEqual(parseMasterKey(key.toString('hex')), key);
    assert.deepEqual(parseMasterKey(key.toString('base64')), key);
    assert.deepEqual(parseMasterKey(key.toString('base64url')), key);
    assert.throws(() => parseMasterKey('too-short'), SecretKeyError);
  });

  it('embedded, no key configured: one key file, 0600, made once and reused', async () => {
    const dir = tempDataDir();
    const first = await lazySecretBox({ storage: 'pglite', dataDir: dir, db: handle.db })();
    const text = readFileSync(`${dir}/secret.key`, 'utf8');
    assert.equal(statSync(`${dir}/secret.key`).mode & 0o777, 0o600);
    const second = await lazySecretBox({ storage: 'pglite', dataDir: dir, db: handle.db })();
    assert.equal(second.keyId, first.keyId);
    assert.equal(readFileSync(`${dir}/secret.key`, 'utf8'), text);
  });

  it('PostgreSQL, no key configured: one row of service_settings shared by every instance', async () => {
    const opts = { storage: 'postgres' as const, dataDir: tempDataDir(), db: handle.db };
    const [a, b] = await Promise.all([lazySecretBox(opts)(), lazySecretBox(opts)()]);
    assert.equal(a.keyId, b.keyId);
    assert.equal(b.open(a.seal('x', 'r'), 'r'), 'x');
    const configured = await lazySecretBox({ ...opts, configuredKey: key.toString('hex') })();
    assert.equal(configured.keyId, box.keyId, 'MICA_SECRET_KEY wins');
  });
});
