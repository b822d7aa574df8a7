import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { KIND_SPECS, type WebhookKind } from '../../src/domain/webhooks/kinds.ts';
import { computeSignature } from '../../src/domain/webhooks/signature.ts';
import { startTestApp, type TestApp } from './harness.ts';

/** A fixed master key, so tests do not write a key file into ./data. */
export const TEST_SECRET_KEY = 'a1'.repeat(32);

/** The app with webhook limits out of the way (the limits have their own test). */
export function startWebhookApp(env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp({
    MICA_SECRET_KEY: TEST_SECRET_KEY,
    WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000',
    WEBHOOK_RATE_LIMIT_PER_KIND_PER_MINUTE: '1000000',
    WEBHOOK_UNVERIFIED_PER_MINUTE: '1000000',
    ...env,
  });
}

const OBJECT_FIELD: Record<WebhookKind, string> = {
  'txmon-a': 'alert_id',
  'txmon-b': 'alert_id',
  kyc: 'evaluation_id',
  screening: 'hit_id',
};
const CREATION_EVENT: Record<WebhookKind, string> = {
  'txmon-a': 'alert.created',
  'txmon-b': 'alert.created',
  kyc: 'evaluation.completed',
  screening: 'screening.hit',
};

/** A vendor body of CONTRACT §6: a fresh delivery id and vendor object id unless given. */
/** The parsed form of a vendor body, with the vendor object id under its kind's field. */
export interface VendorBody {
  id: string;
  event: string;
  created_at: string;
  data: Record<string, unknown> & { alert_id: string; hit_id: string; evaluation_id: string };
}

/** A vendor body of CONTRACT §6: a fresh delivery id and vendor object id unless given. */
export function vendorBody(
  kind: WebhookKind,
  opts: { id?: string; event?: string; objectId?: string; data?: Record<string, unknown> } = {},
): VendorBody {
  return {
    id: opts.id ?? `dlv-${randomUUID()}`,
    event: opts.event ?? CREATION_EVENT[kind],
    created_at: new Date().toISOString(),
    data: {
      [OBJECT_FIELD[kind]]: opts.objectId ?? `obj-${randomUUID()}`,
      ...opts.data,
    } as VendorBody['data'],
  };
}

export interface SignOptions {
  /** Seconds since the epoch sent as X-Signature-Timestamp (and signed). */
  timestamp?: number | string;
  prefix?: boolean;
  /** Override the header carrying the signature (or null to send none). */
  header?: string | null;
  signature?: string;
  client?: string;
  extraHeaders?: Record<string, string>;
}

/** An inject() request for a delivery signed with `secret` over the exact bytes sent. */
export function signed(kind: WebhookKind, secret: string, body: unknown, o: SignOptions = {}): InjectOptions {
  // A Buffer is sent as it is (bytes that need not be UTF-8).
  const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const ts = o.timestamp === undefined ? undefined : String(o.timestamp);
  const sig =
    o.signature ?? computeSignature(secret, Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8'), ts);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...o.extraHeaders };
  const header = o.header === undefined ? KIND_SPECS[kind].signatureHeader : o.header;
  if (header !== null) headers[header] = o.prefix ? `sha256=${sig}` : sig;
  if (ts !== undefined) headers['x-signature-timestamp'] = ts;
  const query = o.client === undefined ? '' : `?client=${encodeURIComponent(o.client)}`;
  return { method: 'POST', url: `/api/webhooks/${kind}${query}`, headers, payload: raw };
}

/** Registers a vendor kind for a client with one secret (through the same command as the CLI). */
export async function register(t: TestApp, kind: WebhookKind, clientId: string, secret: string) {
  return (await t.deps.commands('webhooks.add', { kind, client_id: clientId, secret }, 'test')) as {
    id: string;
    fingerprint: string;
  };
}

/** Row counts of everything intake writes, to prove a refused delivery left nothing. */
export async function intakeCounts(t: TestApp) {
  const count = async (table: 'alerts' | 'cases' | 'webhook_deliveries' | 'kyc_decisions') =>
    Number(
      (
        await t.deps.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    alerts: await count('alerts'),
    cases: await count('cases'),
    deliveries: await count('webhook_deliveries'),
    kyc: await count('kyc_decisions'),
  };
}
