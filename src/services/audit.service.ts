import { AppError } from '../errors.ts';
import type { AuditCursor, AuditFilter, AuditQueryRepo, AuditRow } from '../storage/audit-query.repo.ts';

/** The columns of an exported audit row, in the spec's order, then the extras we record. */
export const AUDIT_COLUMNS = [
  'client_id',
  'evaluation_id',
  'rule_id',
  'result',
  'trigger_type',
  'trigger_entity_type',
  'trigger_entity_id',
  'evaluated_at',
  'transaction_blocked',
  'alert_generated',
  'conditions_evaluated',
  'conditions_met',
  'actions_executed',
  'severity',
  'evaluator_id',
  'customer_id',
  'rule_set_version',
] as const;

export interface AuditQuery {
  from?: string;
  to?: string;
  rule_id?: string;
  customer_id?: string;
  transaction_id?: string;
  cursor?: string;
  limit?: number;
}

/** ISO 8601 date-time; a date alone means its UTC midnight (CONTRACT §9). */
function parseInstant(field: string, v: string | undefined): Date | undefined {
  if (v === undefined || v === '') return undefined;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v;
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(text);
  const d = new Date(text);
  if (!ok || Number.isNaN(d.getTime()))
    throw new AppError(
      'INVALID_REQUEST',
      `Invalid request: ${field}: Must be an ISO 8601 date or date-time`,
      {
        field,
        reason: 'Must be an ISO 8601 date or date-time',
        errors: [`${field}: Must be an ISO 8601 date or date-time`],
      },
    );
  return d;
}

function encodeCursor(row: AuditRow): string {
  const c: AuditCursor = { at: row.evaluated_at, id: row.evaluation_id, pos: row.rule_position };
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(s: string | undefined): AuditCursor | undefined {
  if (!s) return undefined;
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as AuditCursor;
    if (
      typeof c.at === 'string' &&
      typeof c.id === 'string' &&
      Number.isInteger(c.pos) &&
      !Number.isNaN(Date.parse(c.at))
    )
      return c;
  } catch {
    /* reported below */
  }
  throw new AppError('INVALID_REQUEST', 'Invalid request: cursor: Not a cursor from this API', {
    field: 'cursor',
    reason: 'Not a cursor from this API',
    errors: ['cursor: Not a cursor from this API'],
  });
}

/** A row as exported: the internal ordering column dropped. */
function publicRow(r: AuditRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of AUDIT_COLUMNS) out[c] = r[c];
  return out;
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) || /^[=+\-@]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The audit trail of a client: pages for the API, and exports streamed in chunks. */
export function createAuditService(deps: { audit: AuditQueryRepo }) {
  function filterOf(clientId: string, q: AuditQuery): AuditFilter {
    const from = parseInstant('from', q.from);
    const to = parseInstant('to', q.to);
    if (from && to && from > to)
      throw new AppError('INVALID_REQUEST', 'Invalid request: from: Must not be after to', {
        field: 'from',
        reason: 'Must not be after to',
        errors: ['from: Must not be after to'],
      });
    return {
      client_id: clientId,
      from,
      to,
      rule_id: q.rule_id,
      customer_id: q.customer_id,
      transaction_id: q.transaction_id,
    };
  }

  return {
    /** One page, newest first. */
    async list(clientId: string, q: AuditQuery) {
      const filter = filterOf(clientId, q);
      const limit = Math.min(Math.max(q.limit ?? 100, 1), 1000);
      const rows = await deps.audit.page(filter, decodeCursor(q.cursor), limit);
      const last = rows.at(-1);
      return {
        items: rows.map(publicRow),
        next_cursor: rows.length === limit && last ? encodeCursor(last) : null,
      };
    },

    /**
     * Every matching row as CSV or a JSON array, produced chunk by chunk (keyset pages), so an
     * export of millions of rows never sits in memory. Validation happens before the first chunk.
     */
    export(clientId: string, q: AuditQuery, format: 'csv' | 'json'): AsyncGenerator<string> {
      const filter = filterOf(clientId, q);
      const pageSize = 2000;
      return (async function* () {
        yield format === 'csv' ? `${AUDIT_COLUMNS.join(',')}\r\n` : '[';
        let cursor: AuditCursor | undefined;
        let first = true;
        for (;;) {
          const rows = await deps.audit.page(filter, cursor, pageSize);
          if (rows.length === 0) break;
          let chunk = '';
          for (const r of rows) {
            if (format === 'csv') chunk += `${AUDIT_COLUMNS.map((c) => csvCell(r[c])).join(',')}\r\n`;
            else {
              chunk += (first ? '' : ',') + JSON.stringify(publicRow(r));
              first = false;
            }
          }
          yield chunk;
          if (rows.length < pageSize) break;
          const last = rows.at(-1)!;
          cursor = { at: last.evaluated_at, id: last.evaluation_id, pos: last.rule_position };
        }
        if (format === 'json') yield ']';
      })();
    },
  };
}
export type AuditService = ReturnType<typeof createAuditService>;
