import { randomUUID } from 'node:crypto';
import { isWebhookKind, WEBHOOK_KINDS, type WebhookKind } from '../domain/webhooks/kinds.ts';
import { AppError } from '../errors.ts';
import type { OperatorAuditRepo } from '../storage/operator-audit.repo.ts';
import type { RegistrationRow, WebhookRegistrationsRepo } from '../storage/webhook-registrations.repo.ts';
import type { SecretBox } from './secret-box.ts';

/** Rotation needs two or three at once; a bound keeps the HMAC work per delivery small. */
export const MAX_SECRETS_PER_REGISTRATION = 5;
const SECRET_MAX = 512;
/**
 * The vendor chooses the secret, so any non-empty one is taken (CONTRACT §8 sets no minimum); one
 * shorter than this is accepted with a warning, as an HMAC key that short can be guessed.
 */
const SECRET_ADVISED = 16;

/** A registration able to verify deliveries: its tenant and its secrets in clear, oldest first. */
export interface WebhookCandidate {
  registrationId: string;
  clientId: string;
  secrets: string[];
}

function checkKind(kind: string): WebhookKind {
  if (!isWebhookKind(kind))
    throw new AppError(
      'INVALID_REQUEST',
      `unknown vendor kind ${kind} (one of: ${WEBHOOK_KINDS.join(', ')})`,
    );
  return kind;
}

/**
 * Webhook registrations (CONTRACT §6): a client, a vendor kind, and the secrets the vendor signs
 * with. Every change is audited; secrets are shown only as fingerprints, never in clear.
 */
export function createWebhookRegistrationsService(deps: {
  repo: WebhookRegistrationsRepo;
  clientExists: (clientId: string) => Promise<boolean>;
  audit: Pick<OperatorAuditRepo, 'record'>;
  secretBox: () => Promise<SecretBox>;
  /** How long the decrypted secrets of a kind are reused before the database is asked again. */
  cacheMs: number;
  /** A stored secret that cannot be opened (the master key changed): reported, then skipped. */
  onUnreadableSecret?: (err: unknown, registrationId: string) => void;
}) {
  const cache = new Map<WebhookKind, { value: Promise<WebhookCandidate[]>; until: number }>();

  async function view(rows: RegistrationRow[]) {
    const secrets = await deps.repo.secretsOf(rows.map((r) => r.id));
    return rows.map((r) => ({
      id: r.id,
      client_id: r.client_id,
      kind: r.kind,
      created_at: r.created_at.toISOString(),
      created_by: r.created_by,
      secrets: secrets
        .filter((s) => s.registration_id === r.id)
        .map((s) => ({ fingerprint: s.fingerprint, created_at: s.created_at.toISOString() })),
    }));
  }

  async function load(kind: WebhookKind): Promise<WebhookCandidate[]> {
    const box = await deps.secretBox();
    const rows = await deps.repo.list({ kind });
    const secrets = await deps.repo.secretsOf(rows.map((r) => r.id));
    return rows.map((r) => {
      const clear: string[] = [];
      for (const s of secrets.filter((x) => x.registration_id === r.id)) {
        try {
          clear.push(box.open(s.sealed, r.id));
        } catch (err) {
          deps.onUnreadableSecret?.(err, r.id);
        }
      }
      return { registrationId: r.id, clientId: r.client_id, secrets: clear };
    });
  }

  return {
    /** Registers a kind for a client, or adds a secret to its registration (rotation). */
    async add(kindText: string, clientId: string, secret: string, actor: string) {
      const kind = checkKind(kindText);
      if (secret.length < 1 || secret.length > SECRET_MAX)
        throw new AppError('INVALID_REQUEST', `the secret must be 1 to ${SECRET_MAX} characters`);
      if (!(await deps.clientExists(clientId)))
        throw new AppError('NOT_FOUND', `client ${clientId} not found`);
      const box = await deps.secretBox();
      // The tenant of a delivery is the registration whose secret verifies it (CONTRACT §6): a
      // secret two clients share would file one client's alerts under the other's. Whatever the
      // kind: txmon-a and txmon-b sign alike, so a delivery signed for one client's txmon-a was
      // accepted unchanged on the txmon-b endpoint of another client holding the same secret.
      // A secret this registration already holds is a repeat (nothing added), whatever others hold.
      const fingerprint = box.fingerprint(secret);
      const all = await deps.repo.list();
      const own = all.find((r) => r.client_id === clientId && r.kind === kind);
      const repeat = own && (await deps.repo.secretsOf([own.id])).some((s) => s.fingerprint === fingerprint);
      const others = all.filter((r) => r.client_id !== clientId);
      const taken = repeat
        ? undefined
        : (await deps.repo.secretsOf(others.map((r) => r.id))).find((s) => s.fingerprint === fingerprint);
      if (taken)
        throw new AppError(
          'INVALID_REQUEST',
          `this secret is already registered for another client's ${others.find((r) => r.id === taken.registration_id)?.kind} webhooks; each client needs a secret of its own`,
        );
      const reg = await deps.repo.upsert({
        id: `whr_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
        client_id: clientId,
        kind,
        created_by: actor,
      });
      const existing = await deps.repo.secretsOf([reg.id]);
      const known = existing.some((s) => s.fingerprint === fingerprint);
      if (!known && existing.length >= MAX_SECRETS_PER_REGISTRATION)
        throw new AppError(
          'INVALID_REQUEST',
          `registration ${reg.id} already holds ${MAX_SECRETS_PER_REGISTRATION} secrets; remove an old one first`,
        );
      const added =
        !known &&
        (await deps.repo.addSecret({
          registration_id: reg.id,
          fingerprint,
          sealed: box.seal(secret, reg.id),
          created_by: actor,
        }));
      if (added)
        await deps.audit.record({
          client_id: clientId,
          actor,
          action: existing.length === 0 ? 'webhook.registered' : 'webhook.secret_added',
          subject: reg.id,
          detail: { kind, fingerprint },
        });
      cache.delete(kind);
      const [shown] = await view([reg]);
      const weak = secret.length < SECRET_ADVISED;
      return {
        ...shown!,
        fingerprint,
        added,
        ...(weak
          ? { warning: `the secret is shorter than ${SECRET_ADVISED} characters: easy to guess` }
          : {}),
      };
    },

    /** Registrations with their secrets' fingerprints (never the secrets). */
    async list(clientId?: string) {
      return view(await deps.repo.list({ client_id: clientId }));
    },

    /** Removes one secret (by fingerprint) or, without one, the whole registration. */
    async remove(id: string, actor: string, fingerprint?: string) {
      const reg = await deps.repo.byId(id);
      if (!reg) throw new AppError('NOT_FOUND', `webhook registration ${id} not found`);
      const kind = checkKind(reg.kind);
      if (fingerprint !== undefined) {
        const secrets = await deps.repo.secretsOf([id]);
        if (!secrets.some((s) => s.fingerprint === fingerprint))
          throw new AppError('NOT_FOUND', `no secret with fingerprint ${fingerprint} in ${id}`);
        // A registration without secrets would silently refuse every delivery.
        if (secrets.length === 1)
          throw new AppError(
            'INVALID_REQUEST',
            `that is the last secret of ${id}; remove the registration instead`,
          );
        await deps.repo.removeSecret(id, fingerprint);
      } else await deps.repo.remove(id);
      await deps.audit.record({
        client_id: reg.client_id,
        actor,
        action: fingerprint !== undefined ? 'webhook.secret_removed' : 'webhook.removed',
        subject: id,
        detail: { kind, ...(fingerprint !== undefined ? { fingerprint } : {}) },
      });
      cache.delete(kind);
      if (fingerprint === undefined) return { id, client_id: reg.client_id, kind, removed: true };
      const [shown] = await view([reg]);
      return { ...shown!, removed_fingerprint: fingerprint };
    },

    /** Registrations of a kind that may verify a delivery; only the named client's when given. */
    async candidates(kind: WebhookKind, clientId?: string): Promise<WebhookCandidate[]> {
      const t = Date.now();
      let hit = cache.get(kind);
      if (!hit || hit.until <= t) {
        hit = { value: load(kind), until: t + deps.cacheMs };
        if (deps.cacheMs > 0) cache.set(kind, hit);
        hit.value.catch(() => cache.delete(kind));
      }
      const all = await hit.value;
      return clientId === undefined ? all : all.filter((c) => c.clientId === clientId);
    },
  };
}
export type WebhookRegistrationsService = ReturnType<typeof createWebhookRegistrationsService>;
