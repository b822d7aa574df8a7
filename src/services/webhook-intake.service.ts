import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { alertDueAt, type CaseCalendar, caseDueAt, clientCalendar } from '../domain/cases/due-dates.ts';
import { KIND_SPECS, TIMESTAMP_HEADER, type WebhookKind } from '../domain/webhooks/kinds.ts';
import { type NormalisedWebhook, normaliseWebhook, opensCase } from '../domain/webhooks/payload.ts';
import { type VerifyFailure, verifySignature } from '../domain/webhooks/signature.ts';
import { AppError, validationError } from '../errors.ts';
import type { NewAlert, NewCase } from '../storage/follow-ups.repo.ts';
import { isStorable, truncate } from '../storage/storable.ts';
import {
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
  constructor(readonly reason: VerifyFailure | 'no_registration') {
    super('UNAUTHORIZED', 'Invalid or missing webhook signature');
  }
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
 * Webhook intake (CONTRACT §6): limits, signature over the raw bytes, then the payload; an
 * accepted delivery commits its dedup row, its alert, its case and the KYC decision together.
 */
export function createWebhookIntakeService(deps: {
  registrations: Pick<WebhookRegistrationsService, 'candidates'>;
  repo: WebhookIntakeRepo;
  clientContext: (clientId: string) => Promise<ClientContext | undefined>;
  limiter: RateLimitService;
  limits: { perMinute: number; perKindPerMinute: number };
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());

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

  /** The body of one delivery's transaction; throws Duplicate to roll back with a 409. */
  async function apply(
    s: IntakeStatements,
    input: { kind: WebhookKind; clientId: string; n: NormalisedWebhook; body: unknown; rawBody: Buffer },
    headers: Record<string, string>,
    cal: CaseCalendar,
  ): Promise<WebhookAck> {
    const { kind, clientId, n } = input;
    const at = now();
    const iso = at.toISOString();
    const actor = `webhook:${kind}`;
    const existing = await s.lockAlert(clientId, kind, n.vendorObjectId);
    if (existing && n.isCreation)
      throw new Duplicate(`vendor object ${n.vendorObjectId} already has an alert`);
    const alertId = existing?.id ?? randomUUID();
    const recorded = await s.insertDelivery({
      client_id: clientId,
      vendor: kind,
      delivery_id: n.deliveryId,
      alert_id: alertId,
      event: n.event,
      raw_body: input.rawBody.toString('utf8'),
      received_at: iso,
    });
    if (!recorded) throw new Duplicate(`delivery ${n.deliveryId} was processed before`);

    if (existing) {
      let caseId = existing.case_id;
      let caseNumber = existing.case_number;
      // A raised severity can call for a case the first delivery did not need; a closed alert stays closed.
      if (caseId === null && existing.status !== 'closed' && opensCase(kind, n)) {
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
        payload: input.body,
        headers,
        case_id: caseId,
        history: {
          at: iso,
          actor,
          from: existing.status,
          to: existing.status,
          note: `${n.event} (delivery ${n.deliveryId}): ${severityNote}`,
        },
      });
      return { status: 'accepted', platform_alert_id: existing.id, case_id: caseId, case_number: caseNumber };
    }

    const newCase = opensCase(kind, n) ? newCaseFor(kind, n, clientId, at, cal) : undefined;
    const alert: NewAlert = {
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
      payload: input.body,
      headers,
      actor,
    };
    const [opened] = await s.openFollowUps(newCase ? [newCase] : [], [alert]);
    if (kind === 'kyc' && n.decision !== null && n.customerId !== null)
      await s.recordKycDecision({
        client_id: clientId,
        customer_id: n.customerId,
        decision: n.decision,
        alert_id: alertId,
        decided_at: n.createdAt ?? iso,
      });
    return {
      status: 'accepted',
      platform_alert_id: alertId,
      case_id: opened?.id ?? null,
      case_number: opened?.case_number ?? null,
    };
  }

  return {
    /** Counts one delivery against the all-kinds and the per-kind minute limits; the binding decision. */
    async limit(kind: WebhookKind): Promise<LimitDecision> {
      const perKind = await deps.limiter.check(`webhooks:kind:${kind}`, {
        per_minute: deps.limits.perKindPerMinute,
      });
      const all = await deps.limiter.check('webhooks:all', { per_minute: deps.limits.perMinute });
      const refused = [perKind, all].filter((d) => !d.allowed);
      if (refused.length > 0) return refused.reduce((a, b) => (b.retryAfter > a.retryAfter ? b : a));
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
      const input = { kind, clientId, n: normalised.value, body, rawBody: req.rawBody };
      const headers = keptHeaders(kind, req.headers);
      // Two attempts: an update racing the creation of its unknown object retries as an update.
      for (let attempt = 0; ; attempt++) {
        try {
          return await deps.repo.inTransaction((s) => apply(s, input, headers, cal));
        } catch (e) {
          if (e instanceof Duplicate)
            throw new AppError('DUPLICATE_ALERT', 'Alert already processed', { reason: e.why });
          if (!isUniqueViolation(e)) throw e;
          if (normalised.value.isUpdate && attempt === 0) continue;
          throw new AppError('DUPLICATE_ALERT', 'Alert already processed', {
            reason: `vendor object ${normalised.value.vendorObjectId} already has an alert`,
          });
        }
      }
    },
  };
}
export type WebhookIntakeService = ReturnType<typeof createWebhookIntakeService>;
