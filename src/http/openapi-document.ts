/**
 * What the route schemas cannot say in the OpenAPI document: the headers every answer carries,
 * and an operationId per operation (code generators name their methods after it). Added to the
 * finished document, so no route has to repeat them.
 */

type Json = Record<string, unknown>;

const rateLimitHeaders = (of: string, when: string): Json => ({
  'X-RateLimit-Limit': {
    description: `the request limit of the window that binds (${of}); sent ${when}`,
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'requests left in that window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'when that window resets, in Unix seconds',
    schema: { type: 'integer' },
  },
});

/**
 * Header definitions are stated once, in `components.headers`, under `<group><Header>` names; the
 * answers refer to them (repeated in every answer, they were 40 % of the document).
 */
function stated(group: string, headers: Json): { refs: Json; definitions: Json } {
  const refs: Json = {};
  const definitions: Json = {};
  for (const [header, definition] of Object.entries(headers)) {
    const name = group + header.replace(/^X-/, '').replaceAll('-', '');
    definitions[name] = definition;
    refs[header] = { $ref: `#/components/headers/${name}` };
  }
  return { refs, definitions };
}

/** A key's requests are counted against its client once the key is accepted (plugins/rate-limit.ts). */
const CLIENT_LIMIT = stated(
  'Client',
  rateLimitHeaders(
    "the client's minute limit, or its day limit",
    'on every answer once the key is accepted: never on a 401, nor on the 503 of a server shutting down',
  ),
);

/**
 * A webhook delivery is counted against its source before its signature is checked, then, once
 * verified, against the vendor limits, whose decision replaces the first (webhooks.routes.ts).
 */
const WEBHOOK_LIMIT = stated(
  'Webhook',
  rateLimitHeaders(
    "the source's limit of unverified deliveries; once the signature is verified, the vendor limit",
    'on every answer, a failed signature’s 401 included, but the 503 of a server shutting down',
  ),
);

const RETRY_AFTER = stated('', {
  'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer' } },
});

const EXPORT = stated('Export', {
  'Content-Disposition': {
    description: 'an export is an attachment, named after the client and time',
    schema: { type: 'string' },
  },
});

/** The audit trail's answers (see chainCut in audit.service.ts). */
const AUDIT_CUT = stated('', {
  'X-Audit-Chain-Seq': {
    description:
      "the client's chain position the answer is complete through: every matching evaluation up to it is in the answer (or its pages), none after it; pass it as after_seq next time to get exactly what was committed since",
    schema: { type: 'integer' },
  },
});

/** Answers decided by an audited evaluation whose body has no room for its id (evaluated-answer.ts). */
const EVALUATION = stated('', {
  'X-Evaluation-Id': {
    description:
      'the evaluation (trigger_type `wallet_screen` or `travel_rule`) whose audit record backs the answer: for an answer served from the cache, or shared with an identical request in flight, the one that produced it; read it with GET /api/mica/evaluations/{evaluation_id}',
    schema: { type: 'string', format: 'uuid' },
  },
});

/** A bearer endpoint's 401 (plugins/auth.ts). */
const CHALLENGE = stated('Bearer', {
  'WWW-Authenticate': {
    description:
      'the scheme wanted (RFC 6750): `Bearer realm="mica"`, with `error="invalid_token"` when a key was sent but not accepted',
    schema: { type: 'string' },
  },
});

const HEADER_COMPONENTS: Json = Object.assign(
  {},
  ...[CLIENT_LIMIT, WEBHOOK_LIMIT, RETRY_AFTER, EXPORT, AUDIT_CUT, EVALUATION, CHALLENGE].map(
    (h) => h.definitions,
  ),
);

/**
 * The X-Actor request header (evaluate.routes.ts actorOf): who acts for the key, recorded beside the
 * key's id (CONTRACT §9). Read by the operations below; a header, so no route schema states it.
 */
const X_ACTOR: Json = {
  in: 'header',
  name: 'X-Actor',
  required: false,
  description:
    "the person acting through the key, recorded beside the key's id in the audit rows or the history entry (UTF-8, up to 128 characters, no bidirectional control characters; otherwise a 400); ignored for a key issued to an officer, which always acts as that officer",
  schema: { type: 'string', maxLength: 128 },
};

const ACTOR_OPERATIONS = new Set([
  'post /api/mica/evaluate',
  'get /api/mica/wallet-screening',
  'post /api/mica/wallet-screening',
  'post /api/mica/travel-rule-validation',
  'post /api/alerts/{id}/transition',
  'post /api/cases/{id}/transition',
  'post /api/cases/{id}/assign',
]);

const AUDIT_CUT_PATHS = new Set(['/api/mica/audit/evaluations', '/api/mica/audit/actions']);

/** Every 200 of these (GET and POST alike) is an evaluation's answer (EVALUATION). */
const EVALUATION_PATHS = new Set(['/api/mica/wallet-screening', '/api/mica/travel-rule-validation']);

/**
 * What each status means, for the answers whose route states no description of its own (Fastify
 * names them "Default Response", which tells a reader nothing).
 */
function statusDescription(path: string, status: string): string | undefined {
  const webhook = path.startsWith('/api/webhooks/');
  switch (status) {
    case '200':
      return 'Success';
    case '400':
      return 'Invalid request: not JSON, a missing field, a wrong type, an unknown enum value or a value out of range; `details` names the fields (all of them in `details.errors`)';
    case '401':
      return webhook
        ? 'Signature missing or not valid for the raw body under any secret of a registration of this vendor kind, or `X-Signature-Timestamp` more than 300 s away from now'
        : 'Missing, unknown, expired or revoked API key, or a key of the other environment (live / sandbox)';
    case '403':
      return "The key's role may not do this (administrators only)";
    case '404':
      return "No such id for the caller's client: an id of another client answers the same";
    case '409':
      return webhook
        ? 'DUPLICATE_ALERT: a delivery id seen before, or a creation event for a vendor object that already has an alert; nothing stored'
        : 'The current state does not allow this (a transition its state does not lead to, or a change made meanwhile)';
    case '413':
      return "Body larger than the service's limit (1 MiB unless the operator set BODY_LIMIT_BYTES)";
    case '429':
      return 'Rate limit exceeded: retry after `Retry-After` seconds';
    case '500':
      return 'Internal error: no detail in the answer; its `X-Request-Id` finds the cause in the logs';
    case '503':
      return path.startsWith('/api/')
        ? 'Unavailable for now (storage unreachable, a vendor unavailable or its circuit breaker open, or the server shutting down): nothing was accepted; retry after `Retry-After` seconds'
        : 'Not ready: the database or the cache is unreachable';
    default:
      return undefined;
  }
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** `post /api/cases/{id}/assign` → `postApiCasesByIdAssign`. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((seg) => {
      const param = /^\{(.+)\}$/.exec(seg)?.[1];
      const text = param ? `by_${param}` : seg;
      return text
        .split(/[^A-Za-z0-9]+/)
        .filter(Boolean)
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join('');
    });
  return method + words.join('');
}

/**
 * The 405 of a documented path called with a method it does not serve (plugins/not-found.ts): in
 * no operation (it would repeat on each), stated once here and in the document's description.
 */
const METHOD_NOT_ALLOWED: Json = {
  description:
    'A path the service serves, called with a method it does not serve there: `METHOD_NOT_ALLOWED` in the error format of that path (nested, or flat under the screening, travel-rule, circuit-breaker and cache paths), with `details.allowed` and the `Allow` header listing the methods served. An API request with a valid key is counted and carries the `X-RateLimit-*` headers; a bad key is not refused (there is nothing to authenticate for). A path the service does not serve is a 404 `NOT_FOUND`.',
  headers: {
    Allow: {
      description: 'the methods the path is served under, comma-separated',
      schema: { type: 'string' },
    },
    ...CLIENT_LIMIT.refs,
  },
  content: {
    'application/json': {
      schema: {
        anyOf: [
          {
            type: 'object',
            required: ['error'],
            properties: {
              error: {
                type: 'object',
                required: ['code', 'message', 'details'],
                properties: {
                  code: { const: 'METHOD_NOT_ALLOWED' },
                  message: { type: 'string' },
                  details: {
                    type: 'object',
                    required: ['allowed'],
                    properties: { allowed: { type: 'array', items: { type: 'string' } } },
                  },
                },
              },
            },
          },
          {
            type: 'object',
            required: ['error', 'type', 'details', 'statusCode'],
            properties: {
              error: { type: 'string' },
              type: { const: 'METHOD_NOT_ALLOWED' },
              details: {
                type: 'object',
                required: ['allowed'],
                properties: { allowed: { type: 'array', items: { type: 'string' } } },
              },
              statusCode: { const: 405 },
            },
          },
        ],
      },
    },
  },
};

/** The rate-limit headers of one answer, where the service sends them (a bearer 401: its challenge). */
function limitHeadersOf(path: string, op: Json, status: string): Json {
  if (path.startsWith('/api/webhooks/')) return WEBHOOK_LIMIT.refs;
  // Counted after authentication: a 401 has no client to count against, and carries none.
  const bearer = Array.isArray(op.security) && op.security.length > 0;
  if (!bearer) return {};
  return status === '401' ? CHALLENGE.refs : CLIENT_LIMIT.refs;
}

/**
 * Adds the answers' headers, the operation ids and the 405 response to a finished OpenAPI
 * document. Headers are stated only where the service sends them.
 */
export function withHeadersAndIds<T>(doc: T): T {
  const paths = ((doc as Json).paths ?? {}) as Record<string, Record<string, Json>>;
  for (const [path, item] of Object.entries(paths))
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method) || typeof op !== 'object' || op === null) continue;
      op.operationId ??= operationIdOf(method, path);
      if (ACTOR_OPERATIONS.has(`${method} ${path}`))
        op.parameters = [...((op.parameters as Json[]) ?? []), { $ref: '#/components/parameters/XActor' }];
      const responses = (op.responses ?? {}) as Record<string, Json>;
      for (const [status, res] of Object.entries(responses)) {
        if (res.description === 'Default Response')
          res.description = statusDescription(path, status) ?? res.description;
        const content = (res.content ?? {}) as Json;
        const headers: Json = {
          ...limitHeadersOf(path, op, status),
          // The service's own 503s (store lost, vendor away, shutting down); /readyz's 503 has none.
          ...(status === '429' || (status === '503' && path.startsWith('/api/')) ? RETRY_AFTER.refs : {}),
          ...(status === '200' && 'text/csv' in content ? EXPORT.refs : {}),
          ...(status === '200' && AUDIT_CUT_PATHS.has(path) ? AUDIT_CUT.refs : {}),
          ...(status === '200' && EVALUATION_PATHS.has(path) ? EVALUATION.refs : {}),
        };
        if (Object.keys(headers).length > 0) res.headers = { ...headers, ...((res.headers as Json) ?? {}) };
      }
    }
  const components = ((doc as Json).components ?? {}) as Json;
  components.responses = { ...((components.responses as Json) ?? {}), MethodNotAllowed: METHOD_NOT_ALLOWED };
  components.headers = { ...((components.headers as Json) ?? {}), ...HEADER_COMPONENTS };
  components.parameters = { ...((components.parameters as Json) ?? {}), XActor: X_ACTOR };
  (doc as Json).components = components;
  return doc;
}
