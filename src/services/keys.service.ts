import { randomBytes, randomUUID } from 'node:crypto';
import { sha256Hex } from '../domain/sha256.ts';
import { AppError } from '../errors.ts';
import type { ClientsRepo } from '../storage/clients.repo.ts';
import type { KeyRow, KeysRepo } from '../storage/keys.repo.ts';
import type { OperatorAuditRepo } from '../storage/operator-audit.repo.ts';
import { createTtlLookup } from './ttl-lookup.ts';

export type Environment = 'live' | 'sandbox';
export type Role = 'standard' | 'admin';

export const KEY_PREFIX: Record<Environment, string> = { live: 'mica_live_', sandbox: 'mica_test_' };
const DAY_MS = 86_400_000;

/** Who is calling: what a valid key resolves to. */
export interface Principal {
  keyId: string;
  clientId: string;
  role: Role;
  environment: Environment;
  officer: string | null;
}

/** The caller of work the service does for a client on its own (scheduled jobs); no key stands behind it. */
export function systemPrincipal(clientId: string, environment: Environment, job: string): Principal {
  return { keyId: `system:${job}`, clientId, role: 'standard', environment, officer: null };
}

/** SHA-256 hex digest: the only form in which a key is stored. */
export function hashKey(key: string): string {
  return sha256Hex(key);
}

function newKeyMaterial(environment: Environment): { keyId: string; key: string } {
  return {
    keyId: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    key: KEY_PREFIX[environment] + randomBytes(32).toString('base64url'),
  };
}

function publicView(row: KeyRow) {
  return {
    key_id: row.key_id,
    client_id: row.client_id,
    role: row.role,
    environment: row.environment,
    officer: row.officer,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

/**
 * Why a key cannot be rotated, or undefined when it can: a revoked or expired key is dead (rotating
 * it would mint a live key from one that no longer authenticates), and a rotated key already has
 * its successor (a second one would leave two live keys from one rotation).
 */
function rotationRefusal(key: KeyRow, at: Date): string | undefined {
  if (key.revoked_at) return 'is revoked';
  if (new Date(key.expires_at).getTime() <= at.getTime()) return 'has expired';
  if (key.replaced_by) return `was already rotated (replaced by ${key.replaced_by})`;
  return undefined;
}

/**
 * How long a rotated key's successor lives: as long as the key it replaces was issued for (a key
 * made for 30 days must not become one for 90 by rotation), or the days asked for.
 */
function successorLifetimeMs(old: { created_at: Date | string; expires_at: Date | string }, days?: number) {
  if (days !== undefined) {
    if (!Number.isFinite(days) || days <= 0 || days > 3650)
      throw new AppError('INVALID_REQUEST', 'expires-in-days must be between 1 and 3650');
    return days * DAY_MS;
  }
  const issued = new Date(old.expires_at).getTime() - new Date(old.created_at).getTime();
  return Number.isFinite(issued) && issued > 0 ? Math.min(issued, 3650 * DAY_MS) : 90 * DAY_MS;
}

/** Key lifecycle (create, revoke, rotate) and authentication; every lifecycle event is audited. */
export function createKeysService(deps: {
  keys: KeysRepo;
  clients: Pick<ClientsRepo, 'get' | 'officers'>;
  audit: Pick<OperatorAuditRepo, 'record'>;
  now?: () => Date;
  /** How long a successful lookup is reused before asking the database again. */
  cacheMs: number;
}) {
  const now = deps.now ?? (() => new Date());
  // Unknown keys are cached too (as undefined), so guessing keys costs the store no more than using one.
  const cache = createTtlLookup<string, KeyRow | undefined>({
    ttlMs: deps.cacheMs,
    load: (hash) => deps.keys.byHash(hash),
  });

  return {
    async create(
      clientId: string,
      opts: {
        role?: Role;
        sandbox?: boolean;
        expiresInDays?: number;
        officer?: string | null;
        actor: string;
      },
    ) {
      if (!(await deps.clients.get(clientId)))
        throw new AppError('NOT_FOUND', `client ${clientId} not found`);
      // A key speaks for its officer in every move it makes: a misspelt name would record moves by
      // nobody the client knows.
      if (opts.officer != null) {
        const officers = await deps.clients.officers(clientId);
        if (!officers.includes(opts.officer))
          throw new AppError(
            'INVALID_REQUEST',
            `officer ${opts.officer} is not an officer of ${clientId} (officers: ${officers.join(', ') || 'none'}; add one with officers add)`,
          );
      }
      const days = opts.expiresInDays ?? 90;
      if (!Number.isFinite(days) || days <= 0 || days > 3650)
        throw new AppError('INVALID_REQUEST', 'expires-in-days must be between 1 and 3650');
      const environment: Environment = opts.sandbox ? 'sandbox' : 'live';
      const { keyId, key } = newKeyMaterial(environment);
      const row = await deps.keys.insert({
        key_id: keyId,
        client_id: clientId,
        key_hash: hashKey(key),
        environment,
        role: opts.role ?? 'standard',
        officer: opts.officer ?? null,
        expires_at: new Date(now().getTime() + days * DAY_MS),
      });
      await deps.audit.record({
        client_id: clientId,
        actor: opts.actor,
        action: 'key.created',
        subject: keyId,
        detail: {
          role: row.role,
          environment,
          expires_at: row.expires_at.toISOString(),
          officer: row.officer,
        },
      });
      return { ...publicView(row), key };
    },

    /**
     * A client's keys as the operator needs them to rotate or revoke one: id, role, environment,
     * officer, dates and state; never the key or its digest.
     */
    async list(clientId: string) {
      if (!(await deps.clients.get(clientId)))
        throw new AppError('NOT_FOUND', `client ${clientId} not found`);
      const at = now().getTime();
      const rows = await deps.keys.forClient(clientId);
      return {
        client_id: clientId,
        keys: rows.map((row) => {
          const view = publicView(row);
          const state = row.revoked_at
            ? 'revoked'
            : row.expires_at.getTime() <= at
              ? 'expired'
              : row.replaced_by
                ? 'rotated'
                : 'active';
          return { ...view, replaced_by: row.replaced_by, state };
        }),
      };
    },

    async revoke(keyId: string, actor: string) {
      const row = await deps.keys.byId(keyId);
      if (!row) throw new AppError('NOT_FOUND', `key ${keyId} not found`);
      const at = now();
      const changed = await deps.keys.revoke(keyId, at);
      cache.clear();
      if (changed)
        await deps.audit.record({ client_id: row.client_id, actor, action: 'key.revoked', subject: keyId });
      return { ...publicView((await deps.keys.byId(keyId))!), already_revoked: !changed };
    },

    /** Issues a successor with the same role; the old key keeps working for the grace period. */
    async rotate(keyId: string, actor: string, graceHours = 24, expiresInDays?: number) {
      const old = await deps.keys.byId(keyId);
      if (!old) throw new AppError('NOT_FOUND', `key ${keyId} not found`);
      const at = now();
      const refusal = rotationRefusal(old, at);
      if (refusal) throw new AppError('INVALID_REQUEST', `key ${keyId} ${refusal}`);
      if (old.officer !== null && !(await deps.clients.officers(old.client_id)).includes(old.officer))
        throw new AppError(
          'INVALID_REQUEST',
          `key ${keyId} is issued to ${old.officer}, no longer an officer of ${old.client_id}: create a key for a current officer`,
        );
      const { keyId: newId, key } = newKeyMaterial(old.environment);
      const graceUntil = new Date(at.getTime() + graceHours * 3_600_000);
      const rotated = await deps.keys.rotate(
        keyId,
        {
          key_id: newId,
          client_id: old.client_id,
          key_hash: hashKey(key),
          environment: old.environment,
          role: old.role,
          officer: old.officer,
          expires_at: new Date(at.getTime() + successorLifetimeMs(old, expiresInDays)),
        },
        graceUntil,
        at,
      );
      // Changed between the read and the rotation (a concurrent rotate or revoke): say what it is now.
      if (!rotated) {
        const current = await deps.keys.byId(keyId);
        throw new AppError(
          'INVALID_REQUEST',
          `key ${keyId} ${(current && rotationRefusal(current, at)) ?? 'cannot be rotated'}`,
        );
      }
      cache.clear();
      // The old key lives until the earlier of its own expiry and the grace period: what is printed
      // and audited is that time, not the grace period's end.
      const oldExpiresAt = rotated.old_expires_at.toISOString();
      await deps.audit.record({
        client_id: old.client_id,
        actor,
        action: 'key.rotated',
        subject: keyId,
        detail: { replaced_by: newId, old_key_expires_at: oldExpiresAt },
      });
      return { ...publicView(rotated.row), key, rotated_from: keyId, old_key_expires_at: oldExpiresAt };
    },

    /** Resolves a bearer key for this environment; undefined for anything not currently valid. */
    async authenticate(key: string, environment: Environment): Promise<Principal | undefined> {
      if (!key.startsWith(KEY_PREFIX[environment]) || key.length > 200) return undefined;
      const row = await cache.get(hashKey(key));
      if (!row || row.environment !== environment || row.revoked_at) return undefined;
      if (row.expires_at.getTime() <= now().getTime()) return undefined;
      return {
        keyId: row.key_id,
        clientId: row.client_id,
        role: row.role,
        environment: row.environment,
        officer: row.officer,
      };
    },
  };
}
export type KeysService = ReturnType<typeof createKeysService>;
