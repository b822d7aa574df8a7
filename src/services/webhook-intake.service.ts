import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { changeTime } from '../domain/cases/change-time.ts';
import { alertDueAt, type CaseCalendar, caseDueAt, clientCalendar } from '../domain/cases/due-dates.ts';
import { KIND_SPECS, TIMESTAMP_HEADER, type WebhookKind } from '../domain/webhooks/kinds.ts';
import { type NormalisedWebhook, normaliseWebhook, opensCase } from '../domain/webhooks/payload.ts';
import { type VerifyFailure, verifySignature } from '../domain/webhooks/signature.ts';
import { sourceKey } from '../domain/webhooks/source-address.ts';
import { AppError, validationError } from '../errors.ts';
import type { NewCase } from '../storage/follow-ups.repo.ts';
import { createGroupCommit } from '../storage/group-commit.ts';
import { isStorable, truncate } from '../storage/storable.ts';
import { isStoreUnavailable } from '../storage/store-errors.ts';
import {
  type CreationRows,
  type IntakeStatements,
  isUniqueViolation,
  type WebhookIntakeRepo,
} from '../storage/webhook-intake.repo.ts';
import type { ClientContext } from './evaluation.service.ts';
import type { LimitDecision, RateLimitService } from './rate-limit.service.ts';
import type { WebhookRegistrationsService } from './webhook-registrations.service.ts';

/** The acknowledgement of the spec (HTTP 200). */
export interface WebhookAck {
  status: 'accepted';
  platform_alert_id: string;
  case_id: string | null;
  case_number: string | null;
}

/** A delivery refused before anything was read: 401, and a security log line by the caller. */
export class SignatureRejected extends AppError {
  constructor(readonly reason: VerifyFailure | 'no_registration' | 'ambiguous_tenant') {
    super('UNAUTHORIZED', 'Invalid or missing webhook signature');
  }
}

/** A verified delivery with its parsed, normalised body. */
interface Input {
  kind: WebhookKind;
  clientId: string;
  n: NormalisedWebhook;
  body: unknown;
  rawBody: Buffer;
}

/** Thrown inside the intake transaction so that it rolls back. */
class Duplicate extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

// Kept with the alert: enough to re-verify the signature over the stored bytes, nothing secret.
const KEPT_HEADERS = [TIMESTAMP_HEADER, 'content-type', 'user-agent', 'x-request-id'];
const REASON_MAX = 500;

function headerValue(v: string | string[] | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function keptHeaders(kind: WebhookKind, headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [KIND_SPECS[kind].signatureHeader, ...KEPT_HEADERS]) {
    const v = headerValue(headers[name]);
    if (v !== undefined) out[name] = v.slice(0, 512);
  }
  return out;
}

/**
 * Webhook intake (CONTRACT §6): signature over the raw bytes, limits, then the payload; an
 * accepted delivery commits its dedup row, its alert, its case and the KYC decision together.
 */
/** The counter of a source's unverified deliveries of a kind (IPv6 sources by their /64). */
const unverifiedKey = (source: string, kind: WebhookKind) =>
  `webhooks:unverified:${kind}:${sourceKey(source)}`;

export function createWebhookIntakeService(deps: {
  registrations: Pick<WebhookRegistrationsService, 'candidates'>;
  repo: WebhookIntakeRepo;
  clientContext: (clientId: string) => Promise<ClientContext | undefined>;
  limiter: RateLimitService;
  limits: {
    perMinute: number;
    perKindPerMinute: number;
    /** Deliveries of a kind not verified (failed, or in flight), per source and minute, before it is refused unheard. */
    unverifiedPerMinute: number;
  };
  /** Creation batches in flight at once. */
  maxInFlight?: number;
  /** A batch beyond the first goes in flight only once this many deliveries wait. */
  minQueueForExtraFlush?: number;
  /** Most creation deliveries in one transaction. */
  maxBatch?: number;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  const maxInFlight = deps.maxInFlight ?? 1;
  const maxBatch = deps.maxBatch ?? 256;

  /** The tenant whose registration verifies the signature; throws SignatureRejected otherwise. */
  async function authenticate(
    kind: WebhookKind,
    rawBody: Buffer,
    headers: IncomingHttpHeaders,
    clientId?: string,
  ): Promise<string> {
    const candidates = await deps.registrations.candidates(kind, clientId);
    const secrets: string[] = [];
    const owners: string[] = [];
    for (const c of candidates)
      for (const s of c.secrets) {
        secrets.push(s);
        owners.push(c.clientId);
      }
    if (secrets.length === 0) throw new SignatureRejected('no_registration');
    const result = verifySignature({
      rawBody,
      header: headerValue(headers[KIND_SPECS[kind].signatureHeader]),
      timestampHeader: headerValue(headers[TIMESTAMP_HEADER]),
      secrets,
      now: now(),
    });
    if (!result.ok) throw new SignatureRejected(result.reason);
    // Secrets verify deliveries to one client only (registration refuses a secret another client of
    // the kind holds); should two clients still share one, the delivery is nobody's rather than
    // filed under whichever registration came first. `?client=` tells them apart.
    const tenants = new Set(result.secretIndexes.map((i) => owners[i]!));
    if (tenants.size > 1) throw new SignatureRejected('ambiguous_tenant');
    return owners[result.secretIndex]!;
  }

  function newCaseFor(
    kind: WebhookKind,
    n: NormalisedWebhook,
    clientId: string,
    at: Date,
    cal: CaseCalendar,
  ) {
    const reason = `${kind} ${n.event} ${n.vendorObjectId}: severity ${n.severity}${n.reason ? ` (${n.reason})` : ''}`;
    return {
      id: randomUUID(),
      client_id: clientId,
      reason: truncate(reason, REASON_MAX),
      is_str: false,
      rule_ids: [],
      evaluation_id: null,
      due_at: caseDueAt(at, cal).toISOString(),
      created_at: at.toISOString(),
      actor: `webhook:${kind}`,
    } satisfies NewCase;
  }

  /**
   * The alert's payload: the body as sent, less a leading byte order mark, which JSON parsers may
   * ignore (RFC 8259 §8.1; ours does) but a json column refuses: such a delivery, signed and
   * valid, was answered 500 at every retry.
   */
  function payloadText(rawBody: Buffer): string {
    const text = rawBody.toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  /** What a creation delivery stores: its dedup row, its alert, the case it opens, the KYC decision. */
  /** The delivery as recorded (its raw body kept as received), and the alert it created or updated. */
  function deliveryRow(input: Input, alertId: string, receivedAt: string) {
    return {
      client_id: input.clientId,
      vendor: input.kind,
      delivery_id: input.n.deliveryId,
      alert_id: alertId,
      event: input.n.event,
      raw_body: input.rawBody.toString('utf8'),
      received_at: receivedAt,
    };
  }

  function creationRows(
    input: Input,
    headers: Record<string, string>,
    cal: CaseCalendar,
    at: Date,
  ): CreationRows {
    const { kind, clientId, n } = input;
    const iso = at.toISOString();
    const alertId = randomUUID();
    const newCase = opensCase(kind, n) ? newCaseFor(kind, n, clientId, at, cal) : undefined;
    return {
      delivery: deliveryRow(input, alertId, iso),
      case: newCase,
      alert: {
        id: alertId,
        client_id: clientId,
        severity: n.severity,
        source: kind,
        event: n.event,
        vendor_object_id: n.vendorObjectId,
        customer_id: n.customerId,
        transaction_id: n.transactionId,
        evaluation_id: null,
        case_id: newCase?.id ?? null,
        rule_ids: [],
        due_at: alertDueAt(n.severity, at, cal).toISOString(),
        created_at: iso,
        payload: payloadText(input.rawBody),
        headers,
        actor: `webhook:${kind}`,
      },
      kyc:
        kind === 'kyc' && n.decision !== null && n.customerId !== null
          ? {
              client_id: clientId,
              customer_id: n.customerId,
              decision: n.decision,
              alert_id: alertId,
              decided_at: n.createdAt ?? iso,
            }
          : undefined,
    };
  }

  /** The body of one delivery's transaction; throws Duplicate to roll back with a 409. */
  async function apply(
    s: IntakeStatements,
    input: Input,
    headers: Record<string, string>,
    cal: CaseCalendar,
  ): Promise<WebhookAck> {
    const { kind, clientId, n } = input;
    const existing = await s.lockAlert(clientId, kind, n.vendorObjectId);
    const at = changeTime(now(), existing?.updated_at);
    const iso = at.toISOString();
    const actor = `webhook:${kind}`;
    if (existing && n.isCreation)
      throw new Duplicate(`vendor object ${n.vendorObjectId} already has an alert`);
    const alertId = existing?.id ?? randomUUID();
    const recorded = await s.insertDelivery(deliveryRow(input, alertId, iso));
    if (!recorded) throw new Duplicate(`delivery ${n.deliveryId} was processed before`);

    if (existing) {
      let caseId = existing.case_id;
      let caseNumber = existing.case_number;
      // A raised severity can call for a case the first delivery did not need (CONTRACT §6), also
      // for an alert already closed: the alert stays closed, but the vendor's new finding is worked.
      if (caseId === null && opensCase(kind, n)) {
        const [opened] = await s.openFollowUps([newCaseFor(kind, n, clientId, at, cal)], []);
        caseId = opened!.id;
        caseNumber = opened!.case_number;
      }
      const severityNote =
        existing.severity === n.severity
          ? `severity ${n.severity}`
          : `severity ${existing.severity} → ${n.severity}`;
      await s.updateAlert(existing.id, {
        severity: n.severity,
        due_at: alertDueAt(n.severity, existing.created_at, cal).toISOString(),
        updated_at: iso,
        payload: payloadText(input.rawBody),
        headers,
        case_id: caseId,
        history: {
          at: iso,
          actor,
          from: existing.status,
          to: existing.status,
          note: `${n.event} (delivery ${n.deliveryId}): ${severityNote}`,
          case_id: caseId,
        },
      });
      return { status: 'accepted', platform_alert_id: existing.id, case_id: caseId, case_number: caseNumber };
    }

    const rows = creationRows(input, headers, cal, at);
    const [opened] = await s.openFollowUps(rows.case ? [rows.case] : [], [rows.alert]);
    if (rows.kyc) await s.recordKycDecision(rows.kyc);
    return {
      status: 'accepted',
      platform_alert_id: rows.alert.id,
      case_id: opened?.id ?? null,
      case_number: opened?.case_number ?? null,
    };
  }

  /** One delivery in its own transaction (updates, and whatever a batch could not take). */
  async function single(
    input: Input,
    headers: Record<string, string>,
    cal: CaseCalendar,
  ): Promise<WebhookAck> {
    // Two attempts: an update racing the creation of its unknown object retries as an update.
    for (let attempt = 0; ; attempt++) {
      try {
        return await deps.repo.inTransaction((s) => apply(s, input, headers, cal));
      } catch (e) {
        if (e instanceof Duplicate)
          throw new AppError('DUPLICATE_ALERT', 'Alert already processed', { reason: e.why });
        if (!isUniqueViolation(e)) throw e;
        if (input.n.isUpdate && attempt === 0) continue;
        throw new AppError('DUPLICATE_ALERT', 'Alert already processed', {
          reason: `vendor object ${input.n.vendorObjectId} already has an alert`,
        });
      }
    }
  }

  // Group commit of creation deliveries, as the audit writer does for evaluations: a delivery is
  // flushed at once when a slot is free; those arriving meanwhile go together in the next
  // transaction. Each caller's answer waits for its own batch's commit.
  interface Queued {
    input: Input;
    headers: Record<string, string>;
    cal: CaseCalendar;
    at: Date;
    resolve: (ack: WebhookAck) => void;
    reject: (e: unknown) => void;
  }
  const duplicate = (why: string) =>
    new AppError('DUPLICATE_ALERT', 'Alert already processed', { reason: why });

  async function flush(items: Queued[]): Promise<void> {
    // A batch holds each delivery id and vendor object once; repeats go alone, after it.
    const batch: Queued[] = [];
    const rest: Queued[] = [];
    const seen = new Set<string>();
    for (const q of items) {
      const { kind, clientId, n } = q.input;
      const keys = [
        `o\u0000${clientId}\u0000${kind}\u0000${n.vendorObjectId}`,
        `d\u0000${clientId}\u0000${kind}\u0000${n.deliveryId}`,
      ];
      if (keys.some((k) => seen.has(k))) rest.push(q);
      else {
        for (const k of keys) seen.add(k);
        batch.push(q);
      }
    }
    let alone = rest;
    try {
      const rows = batch.map((q) => creationRows(q.input, q.headers, q.cal, q.at));
      const outcomes = await deps.repo.createBatch(rows);
      batch.forEach((q, i) => {
        const o = outcomes[i]!;
        if (!o.stored) q.reject(duplicate(o.duplicate));
        else
          q.resolve({
            status: 'accepted',
            platform_alert_id: rows[i]!.alert.id,
            case_id: o.opened?.id ?? null,
            case_number: o.opened?.case_number ?? null,
          });
      });
    } catch (err) {
      // Cut off with the store: the batch may have committed, so its deliveries get its error
      // (whose 503 says the outcome is unknown; a vendor's retry then meets the dedup).
      if (isStoreUnavailable(err)) {
        for (const q of batch) q.reject(err);
        alone = rest;
      } else {
        // Rolled back (a concurrent instance stored one of these objects): each delivery gets its
        // own transaction and its own answer.
        alone = [...batch, ...rest];
      }
    }
    for (const q of alone) {
      try {
        q.resolve(await single(q.input, q.headers, q.cal));
      } catch (e) {
        q.reject(e);
      }
    }
  }

  const deliveries = createGroupCommit<Queued>({
    maxBatch,
    maxInFlight,
    minQueueForExtraFlush: deps.minQueueForExtraFlush,
    flush,
  });

  return {
    /**
     * Counts a delivery against its source's limit of unverified deliveries of this kind, before its
     * body is read; given back (releaseUnverified) once answered unless its signature failed. So the
     * count is of failed signatures and deliveries in flight, and past the limit a source is refused before any
     * signature is computed: forged traffic costs neither HMAC work (one per registered secret of
     * the kind) nor the vendors' quotas. Counted per kind, so a kind a vendor has not registered
     * yet does not shut out its others.
     */
    admitUnverified(source: string, kind: WebhookKind): Promise<LimitDecision> {
      return deps.limiter.check(unverifiedKey(source, kind), { per_minute: deps.limits.unverifiedPerMinute });
    },

    /** Gives back what admitUnverified counted, for a delivery whose signature did not fail. */
    releaseUnverified(source: string, kind: WebhookKind): Promise<void> {
      return deps.limiter.release(unverifiedKey(source, kind));
    },

    /**
     * Counts one verified delivery against the all-kinds and the per-kind minute limits; the binding
     * decision. Only verified deliveries count: unsigned traffic must not use up the vendors' quota.
     */
    async limit(kind: WebhookKind): Promise<LimitDecision> {
      const perKind = await deps.limiter.check(`webhooks:kind:${kind}`, {
        per_minute: deps.limits.perKindPerMinute,
      });
      // A delivery its own kind's limit refuses does not count against all kinds' limit: one
      // vendor flooding past its share must not use up the others'.
      if (!perKind.allowed) return perKind;
      const all = await deps.limiter.check('webhooks:all', { per_minute: deps.limits.perMinute });
      if (!all.allowed) return all;
      return all.remaining < perKind.remaining ? all : perKind;
    },

    authenticate,

    /** Validates a verified delivery's parsed body and stores it; throws the AppError to answer with otherwise. */
    async accept(
      kind: WebhookKind,
      clientId: string,
      req: { body: unknown; rawBody: Buffer; headers: IncomingHttpHeaders },
    ): Promise<WebhookAck> {
      const body = req.body;
      const normalised = normaliseWebhook(kind, body);
      if (!normalised.ok) throw validationError(normalised.errors);
      if (!isStorable(body))
        throw validationError(['body: Must not contain NUL characters or unpaired surrogates']);
      const ctx = await deps.clientContext(clientId);
      if (!ctx) throw new AppError('INTERNAL_ERROR', `registered client ${clientId} has no settings`);
      const cal = clientCalendar({
        timeZone: ctx.settings.time_zone,
        holidayCountry: ctx.settings.holiday_country,
      });
      const input: Input = { kind, clientId, n: normalised.value, body, rawBody: req.rawBody };
      const headers = keptHeaders(kind, req.headers);
      if (!normalised.value.isCreation) return single(input, headers, cal);
      return new Promise<WebhookAck>((resolve, reject) => {
        deliveries.add({ input, headers, cal, at: now(), resolve, reject });
      });
    },
  };
}
export type WebhookIntakeService = ReturnType<typeof createWebhookIntakeService>;
