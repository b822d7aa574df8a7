import type {
  ActionCursor,
  ActionExecutionRow,
  ActionExecutionsRepo,
} from '../storage/action-executions.repo.ts';
import type { AuditFilter, AuditQueryRepo } from '../storage/audit-query.repo.ts';
import {
  type AuditQuery,
  auditFilterOf,
  type CarriedCut,
  carriedCutOf,
  chainCut,
  csvCell,
  isCarriedCut,
} from './audit.service.ts';
import { isCursorCount, isCursorText, isCursorTime, readCursor, writeCursor } from './cursor.ts';

/** The columns of an executed action, in order (CSV header, JSON keys). */
export const ACTION_COLUMNS = [
  'client_id',
  'evaluation_id',
  'rule_id',
  'action_type',
  'outcome',
  'executed_at',
  'executor_id',
  'evidence',
  'trigger_type',
  'trigger_entity_id',
  'customer_id',
] as const;

export type ActionQuery = AuditQuery & { action_type?: string };

function publicRow(r: ActionExecutionRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of ACTION_COLUMNS) out[c] = r[c];
  return out;
}

function csvLine(r: ActionExecutionRow): string {
  return `${ACTION_COLUMNS.map((c) => csvCell(r[c])).join(',')}\r\n`;
}

const cursorOf = (r: ActionExecutionRow): ActionCursor => ({
  at: r.cursor_at,
  id: r.evaluation_id,
  rule: r.rule_position,
  action: r.action_position,
});

const isCursor = (c: ActionCursor & CarriedCut) =>
  isCursorTime(c.at) &&
  isCursorText(c.id) &&
  isCursorCount(c.rule) &&
  isCursorCount(c.action) &&
  isCarriedCut(c);

/** The filter of an actions query: the audit rows' filters plus the action type. */
type ActionFilter = AuditFilter & { action_type?: string };

/**
 * The executed actions of the audit trail (migration 011): a page, or every match streamed as
 * CSV or a JSON array, with the filters of the evaluations' audit rows plus the action type.
 */
export function createActionAuditService(deps: {
  actions: ActionExecutionsRepo;
  chain: Pick<AuditQueryRepo, 'chainHead' | 'spanOf'>;
}) {
  const cursorOfQuery = (q: Pick<ActionQuery, 'cursor'>) =>
    q.cursor === undefined ? undefined : readCursor<ActionCursor & CarriedCut>(q.cursor, isCursor);

  return {
    /** The filter of a query, checked, with its cut resolved as the audit rows' (chainCut). */
    async filter(clientId: string, q: ActionQuery, paged: boolean): Promise<ActionFilter> {
      const cursor = cursorOfQuery(q); // an export's only checked, as the audit rows' (AuditService)
      const cut = await chainCut(deps.chain, auditFilterOf(clientId, q), paged ? cursor : undefined);
      return { ...cut, action_type: q.action_type };
    },

    async list(filter: ActionFilter, q: Pick<ActionQuery, 'cursor' | 'limit'>) {
      const after = cursorOfQuery(q);
      const limit = Math.min(Math.max(q.limit ?? 100, 1), 1000);
      const rows = await deps.actions.page(filter, after, limit);
      const last = rows.at(-1);
      return {
        items: rows.map(publicRow),
        next_cursor:
          rows.length === limit && last ? writeCursor({ ...cursorOf(last), ...carriedCutOf(filter) }) : null,
      };
    },

    export(filter: ActionFilter, format: 'csv' | 'json'): AsyncGenerator<string> {
      const pageSize = 1000;
      return (async function* () {
        yield format === 'csv' ? `${ACTION_COLUMNS.join(',')}\r\n` : '[';
        let first = true;
        let after: ActionCursor | undefined;
        for (;;) {
          const page = await deps.actions.page(filter, after, pageSize);
          let chunk = '';
          for (const r of page)
            if (format === 'csv') chunk += csvLine(r);
            else {
              chunk += (first ? '' : ',') + JSON.stringify(publicRow(r));
              first = false;
            }
          if (chunk !== '') yield chunk;
          const last = page.at(-1);
          if (page.length < pageSize || !last) break;
          after = cursorOf(last);
        }
        if (format === 'json') yield ']';
      })();
    },
  };
}
export type ActionAuditService = ReturnType<typeof createActionAuditService>;
