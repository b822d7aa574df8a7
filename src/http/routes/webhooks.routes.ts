import { isIP } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import {
  KIND_SPECS,
  TIMESTAMP_HEADER,
  WEBHOOK_KINDS,
  type WebhookKind,
} from '../../domain/webhooks/kinds.ts';
import { SignatureRejected, type WebhookIntakeService } from '../../services/webhook-intake.service.ts';
import { encodingRefusal, parseJsonBody, registerRawBody } from '../plugins/json-body.ts';
import { rateLimitError, setRateLimitHeaders } from '../plugins/rate-limit.ts';
import { NestedError, VISIBLE_TEXT } from '../schemas/common.schema.ts';

const Ack = Type.Object(
  {
    status: Type.Literal('accepted'),
    platform_alert_id: Type.String({ format: 'uuid' }),
    case_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    case_number: Type.Union([Type.String({ pattern: '^CASE-\\d{4}-\\d{6,}$' }), Type.Null()]),
  },
  { title: 'WebhookAcknowledgement' },
);

const errors = {
  400: NestedError,
  401: NestedError,
  409: NestedError,
  413: NestedError,
  429: NestedError,
  500: NestedError,
  // The store lost (`INTERNAL_ERROR` in this format, with Retry-After and details.retry_after).
  503: NestedError,
};

/** The largest integer a JSON number holds exactly: a larger integer id is refused (payload.ts). */
const MAX_EXACT_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * A kind's delivery as the intake reads it (domain/webhooks/payload.ts), for the OpenAPI document
 * only: the route itself reads the raw bytes, checks the signature first, and validates after.
 * A null optional field counts as absent, as the intake reads it.
 */
function documentedBody(kind: (typeof WEBHOOK_KINDS)[number]) {
  const spec = KIND_SPECS[kind];
  // Ids: strings, or integers (some vendors number their objects), kept as their decimal text.
  const id = (description: string) =>
    Type.Union(
      [
        Type.String({ minLength: 1, maxLength: 256, pattern: VISIBLE_TEXT }),
        Type.Integer({ minimum: -MAX_EXACT_INTEGER, maximum: MAX_EXACT_INTEGER }),
      ],
      {
        description: `${description}. A string that is not blank, at most 256 UTF-16 code units; or an integer of at most ${MAX_EXACT_INTEGER} in magnitude, read as its decimal text (a larger one is refused with 400 "Number too large to be exact …; send the id as a string": it would not be exact)`,
      },
    );
  const nullable = <T extends TSchema>(schema: T, description?: string) =>
    Type.Optional(Type.Union([schema, Type.Null()], { description: description ?? 'null counts as absent' }));
  return Type.Object(
    {
      id: id('delivery id; a repeat is a 409 DUPLICATE_ALERT'),
      event: Type.Union(Object.keys(spec.events).map((e) => Type.Literal(e))),
      created_at: nullable(
        Type.String({
          // payload.ts's ISO_DATE_TIME: seconds optional, a zone required (Z or ±hh[:]mm).
          pattern:
            '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:[Zz]|[+-]\\d{2}:?\\d{2})$',
        }),
        'ISO 8601 date-time with a time zone (seconds optional), a real calendar time between 0001-01-01 and 9999-12-31 UTC; null counts as absent',
      ),
      data: Type.Object(
        {
          [spec.vendorObjectIdField]: id('the vendor object'),
          customer_id: nullable(id('the customer')),
          transaction_id: nullable(id('the transaction')),
          severity: nullable(Type.Union(['low', 'medium', 'high', 'critical'].map((v) => Type.Literal(v)))),
          risk_score: nullable(
            Type.Number({ minimum: 0, maximum: 100 }),
            'severity when none is given; null counts as absent',
          ),
          ...(kind === 'kyc'
            ? {
                decision: nullable(
                  Type.Union(['approved', 'declined', 'review'].map((v) => Type.Literal(v))),
                ),
              }
            : {}),
          reason: nullable(Type.String()),
        },
        { additionalProperties: true, description: 'the vendor object; kept whole with the alert' },
      ),
    },
    { additionalProperties: true },
  );
}

/** `?client=`, documented only: it is read with the signature (clientParam). */
const ClientQuery = Type.Object({
  client: Type.Optional(Type.String({ description: "restricts verification to that client's registration" })),
});

/**
 * `?client=` as the signature check takes it. A repeated parameter names no one client: refused
 * with the signature's 401 (SignatureRejected), not a 400 that would answer an unsigned request
 * before its signature was looked at.
 */
/**
 * The sender's address: the peer's, or with TRUST_PROXY the one the trusted proxies name. A named
 * one that is not an address (X-Forwarded-For is the sender's to write; some proxies add a port)
 * falls back to the peer's, so a made-up value neither escapes the count nor makes keys at will.
 */
function sourceOf(req: FastifyRequest): string {
  if (isIP(req.ip)) return req.ip;
  const withoutPort = /^\[?([^\]]+?)\]?:\d{1,5}$/.exec(req.ip)?.[1];
  if (withoutPort && isIP(withoutPort)) return withoutPort;
  return req.socket.remoteAddress ?? 'unknown';
}

function clientParam(query: unknown): string | undefined {
  const client = (query as Record<string, unknown> | undefined)?.client;
  if (client === undefined || typeof client === 'string') return client;
  throw new SignatureRejected('ambiguous_tenant');
}

/**
 * POST /api/webhooks/{txmon-a,txmon-b,kyc,screening}. The source's limit of unverified deliveries,
 * then the signature over the bytes as received, then the vendor limits (verified deliveries only),
 * then the JSON; a forged delivery is a 401 whatever it contains, and leaves nothing behind but a
 * security log line and its count against its source.
 */
export const webhookRoutes =
  (deps: { intake: WebhookIntakeService; onRejected?: (scope: string) => void }): FastifyPluginAsyncTypebox =>
  async (app) => {
    // This plugin's own body parser: nothing is parsed before the signature is checked.
    registerRawBody(app);
    // The body is read as bytes whatever its Content-Type, so the header is set aside before
    // Fastify reads it: one it cannot parse (empty, `foo`, `application/`) was refused with a 400
    // ahead of the signature check, a forged delivery included. It is kept with the alert as sent.
    const contentTypes = new WeakMap<FastifyRequest, string>();
    app.addHook('onRequest', async (req) => {
      const type = req.headers['content-type'];
      if (type === undefined) return;
      contentTypes.set(req, type);
      delete req.headers['content-type'];
    });
    /**
     * Deliveries counted against their source, to be given back when their response closes, with
     * the end of the window they were counted in: given back in a later window, a count would go
     * below zero there and grant a forger extra attempts.
     */
    const admitted = new WeakMap<FastifyRequest, { source: string; until: number }>();
    const giveBack = (req: FastifyRequest, kind: WebhookKind) => {
      const admission = admitted.get(req);
      if (!admission) return;
      admitted.delete(req);
      if (Date.now() >= admission.until) return;
      deps.intake.releaseUnverified(admission.source, kind).catch((e: unknown) => {
        req.log.warn({ err: e }, 'webhook source count not given back');
      });
    };
    for (const kind of WEBHOOK_KINDS) {
      const header = KIND_SPECS[kind].signatureHeader;
      app.post(
        `/api/webhooks/${kind}`,
        {
          config: {
            auth: 'none',
            errorFormat: 'webhook',
            // The document shows the body and the signature header; Fastify does not validate them
            // here (the signature comes first, over the raw bytes).
            swaggerTransform: ({ schema, url }) => ({
              schema: {
                ...schema,
                body: documentedBody(kind),
                querystring: ClientQuery,
                headers: Type.Object({
                  [header]: Type.String({
                    description: 'HMAC-SHA256 of the body, hex (sha256= prefix allowed)',
                  }),
                  [TIMESTAMP_HEADER]: Type.Optional(
                    Type.String({
                      description: 'Unix seconds; when sent, the HMAC covers `<timestamp>.<body>`',
                    }),
                  ),
                }),
              } as never,
              url,
            }),
          },
          onRequest: async (req, reply) => {
            // Every response carries this decision's headers until the vendor limits' replace it.
            const source = sourceOf(req);
            const unverified = await deps.intake.admitUnverified(source, kind);
            setRateLimitHeaders(reply, unverified);
            if (!unverified.allowed) {
              deps.onRejected?.('webhook:unverified');
              throw rateLimitError(unverified);
            }
            // Whatever becomes of an admitted delivery but a failed signature (stored, refused for
            // its JSON or a vendor limit, too large, the store lost, the sender gone before or after
            // its answer), its count is given back when its response closes, which it always does:
            // the count is of failed signatures and deliveries in flight.
            admitted.set(req, { source, until: unverified.resetAt });
            if (reply.raw.closed || req.raw.destroyed) giveBack(req, kind);
            else reply.raw.once('close', () => giveBack(req, kind));
          },
          schema: {
            tags: ['webhooks'],
            summary: `Receive a ${kind} vendor webhook`,
            description:
              `Signed with HMAC-SHA256 (lower-case hex, optional sha256= prefix) in \`${header}\`, over ` +
              `the raw body, or over \`<timestamp>.<body>\` when \`${TIMESTAMP_HEADER}\` is sent (±300 s). ` +
              '`?client=<id>` restricts verification to that client’s registration. Only verified ' +
              'deliveries count against the vendor limits (429); a source with more than ' +
              'WEBHOOK_UNVERIFIED_PER_MINUTE deliveries a minute not verified — failed signatures, and ' +
              'those still in flight — (per kind; IPv6 per /64) is refused with 429 before its ' +
              'signatures are checked.',
            response: { 200: Ack, ...errors },
          },
        },
        async (req, reply) => {
          const rawBody = req.rawBody ?? Buffer.alloc(0);
          let clientId: string;
          try {
            clientId = await deps.intake.authenticate(kind, rawBody, req.headers, clientParam(req.query));
          } catch (e) {
            if (e instanceof SignatureRejected) {
              // The security trail: who tried and why it failed; never the body or any secret.
              req.log.warn({ vendor: kind, reason: e.reason, ip: req.ip }, 'webhook signature rejected');
              admitted.delete(req); // stays counted against its source
            }
            throw e;
          }
          const decision = await deps.intake.limit(kind);
          setRateLimitHeaders(reply, decision);
          if (!decision.allowed) {
            deps.onRejected?.(`webhook:${kind}`);
            throw rateLimitError(decision);
          }
          // After the signature, as the JSON: a compressed body is not read as if it were plain.
          const refused = encodingRefusal(req.headers['content-encoding']);
          if (refused) throw refused;
          const body = parseJsonBody(rawBody);
          const type = contentTypes.get(req);
          const headers = type === undefined ? req.headers : { ...req.headers, 'content-type': type };
          return deps.intake.accept(kind, clientId, { body, rawBody, headers });
        },
      );
    }
  };
