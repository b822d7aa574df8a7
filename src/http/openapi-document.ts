/**
 * What the route schemas cannot say in the OpenAPI document: the headers every answer carries,
 * and an operationId per operation (code generators name their methods after it). Added to the
 * finished document, so no route has to repeat them.
 */

type Json = Record<string, unknown>;

const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': {
    description: "the request limit of the window that binds (the client's minute limit, or its day limit)",
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'requests left in that window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'when that window resets, in Unix seconds',
    schema: { type: 'integer' },
  },
};

const RETRY_AFTER: Json = {
  'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer' } },
};

const EXPORT_HEADERS: Json = {
  'Content-Disposition': {
    description: 'an export is an attachment, named after the client and time',
    schema: { type: 'string' },
  },
};

/** The audit trail's answers (see chainCut in audit.service.ts). */
const AUDIT_CUT_HEADERS: Json = {
  'X-Audit-Chain-Seq': {
    description:
      "the client's chain position the answer is complete through: every matching evaluation up to it is in the answer (or its pages), none after it; pass it as after_seq next time to get exactly what was committed since",
    schema: { type: 'integer' },
  },
};

const AUDIT_CUT_PATHS = new Set(['/api/mica/audit/evaluations', '/api/mica/audit/actions']);

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

/** Adds the answers' headers and the operation ids to a finished OpenAPI document. */
export function withHeadersAndIds<T>(doc: T): T {
  const paths = ((doc as Json).paths ?? {}) as Record<string, Record<string, Json>>;
  for (const [path, item] of Object.entries(paths))
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method) || typeof op !== 'object' || op === null) continue;
      op.operationId ??= operationIdOf(method, path);
      // A key's requests are counted against its client's limits, whatever the answer.
      const limited = Array.isArray(op.security) && op.security.length > 0;
      const responses = (op.responses ?? {}) as Record<string, Json>;
      for (const [status, res] of Object.entries(responses)) {
        const content = (res.content ?? {}) as Json;
        const headers: Json = {
          ...(limited ? RATE_LIMIT_HEADERS : {}),
          ...(status === '429' || status === '503' ? RETRY_AFTER : {}),
          ...(status === '200' && 'text/csv' in content ? EXPORT_HEADERS : {}),
          ...(status === '200' && AUDIT_CUT_PATHS.has(path) ? AUDIT_CUT_HEADERS : {}),
        };
        if (Object.keys(headers).length > 0) res.headers = { ...headers, ...((res.headers as Json) ?? {}) };
      }
    }
  return doc;
}
