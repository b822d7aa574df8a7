import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { sha256Hex } from '../domain/sha256.ts';
import type { Db } from '../storage/db.ts';
import { ensurePrivateDir } from '../storage/private-dir.ts';

// Webhook secrets must be usable for HMAC, so they cannot be hashed like API keys: they are sealed
// with AES-256-GCM. Format: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id
// names the master key, so a changed MICA_SECRET_KEY is reported as such instead of as corruption.

const VERSION = 'v1';
const IV_BYTES = 12;
const KEY_FILE = 'secret.key';
const SETTING_NAME = 'webhook_secret_key';

export class SecretKeyError extends Error {}

/** Seals and opens short secrets under one master key; never logs or returns the key. */
export interface SecretBox {
  /** Short id of the master key (first 8 hex digits of its SHA-256). */
  keyId: string;
  /** Encrypts `plain`, bound to `context` (the owning row's id) so a sealed value cannot be moved. */
  seal(plain: string, context: string): string;
  /** Decrypts a sealed value for the same context; throws SecretKeyError when it cannot. */
  open(sealed: string, context: string): string;
  /** A keyed hash of a secret, safe to show: equal secrets have equal fingerprints. */
  fingerprint(plain: string): string;
}

/** Decodes a 32-byte key given as 64 hex digits or base64 / base64url. */
export function parseMasterKey(text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32)
    throw new SecretKeyError('the secret key must be 32 bytes (64 hex digits or base64)');
  return key;
}

/** A SecretBox over a 32-byte master key; sub-keys for sealing and fingerprints are derived by HKDF. */
export function createSecretBox(master: Buffer): SecretBox {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', master, '', `mica:${info}`, 32));
  const sealKey = derive('webhook-secret-seal');
  const fingerprintKey = derive('webhook-secret-fingerprint');
  const keyId = sha256Hex(master).slice(0, 8);
  return {
    keyId,
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const parts = [iv, ct, cipher.getAuthTag()].map((b) => b.toString('base64url'));
      return [VERSION, keyId, ...parts].join('.');
    },
    open(sealed, context) {
      const [version, id, iv, ct, tag] = sealed.split('.');
      if (version !== VERSION || iv === undefined || ct === undefined || tag === undefined)
        throw new SecretKeyError('unreadable sealed secret');
      if (id !== keyId)
        throw new SecretKeyError(`secret sealed under key ${id}, but the key in use is ${keyId}`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', sealKey, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretKeyError('sealed secret failed authentication');
      }
    },
    fingerprint(plain) {
      return createHmac('sha256', fingerprintKey).update(plain, 'utf8').digest('hex').slice(0, 16);
    },
  };
}

/** Reads MICA_DATA_DIR/secret.key, creating it (mode 0600) on first use; `wx` keeps two creators from racing. */
function keyFromFile(dataDir: string): Buffer {
  const path = join(dataDir, KEY_FILE);
  try {
    return parseMasterKey(readFileSync(path, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  ensurePrivateDir(dataDir);
  try {
    writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    chmodSync(path, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return parseMasterKey(readFileSync(path, 'utf8'));
}

/** Reads the key row, creating it on first use; ON CONFLICT makes every instance agree on one key. */
async function keyFromDatabase(db: Db): Promise<Buffer> {
  await sql`INSERT INTO service_settings (name, value) VALUES (${SETTING_NAME}, ${randomBytes(32).toString('base64')})
            ON CONFLICT (name) DO NOTHING`.execute(db);
  const row = await db
    .selectFrom('service_settings')
    .select('value')
    .where('name', '=', SETTING_NAME)
    .executeTakeFirstOrThrow();
  return parseMasterKey(row.value);
}

/**
 * The master key, resolved on first use (so a process that never touches webhooks creates
 * nothing): MICA_SECRET_KEY when set; else a key file beside the embedded store; else, on
 * PostgreSQL, where instances share no disk, a row of service_settings.
 */
export function lazySecretBox(opts: {
  configuredKey?: string;
  storage: 'pglite' | 'postgres';
  dataDir: string;
  db: Db;
}): () => Promise<SecretBox> {
  let box: Promise<SecretBox> | undefined;
  return () => {
    box ??= (async () => {
      if (opts.configuredKey) return createSecretBox(parseMasterKey(opts.configuredKey));
      if (opts.storage === 'pglite') return createSecretBox(keyFromFile(opts.dataDir));
      return createSecretBox(await keyFromDatabase(opts.db));
    })();
    // A failed resolution (database down) is retried on the next call rather than remembered.
    box.catch(() => {
      box = undefined;
    });
    return box;
  };
}
