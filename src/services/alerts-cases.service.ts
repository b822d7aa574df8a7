import { randomUUID } from 'node:crypto';
import type { Actor } from '../domain/actor.ts';
import { parseCaseNumber } from '../domain/cases/case-number.ts';
import { changeTime } from '../domain/cases/change-time.ts';
import { caseDueAt, clientCalendar } from '../domain/cases/due-dates.ts';
import {
  allowedTransitions,
  type ItemKind,
  isFinalStatus,
  statusesOf,
  transition,
} from '../domain/cases/state-machines.ts';
import { AppError, fieldError } from '../errors.ts';
import type {
  After,
  AlertsCasesRepo,
  CaseRow,
  ListFilter,
  LockedStatements,
} from '../storage/alerts-cases.repo.ts';
import { isStorable, truncate } from '../storage/storable.ts';
import { alertView, caseView, decodeCursor, encodeCursor, iso, refusal, UUID } from './alerts-cases.views.ts';
import type { ClientContext } from './evaluation.service.ts';
import type { Principal } from './keys.service.ts';

const FINAL = {
  alert: statusesOf('alert').filter((s) => isFinalStatus('alert', s)),
  case: statusesOf('case').filter((s) => isFinalStatus('case', s)),
};

export interface ListQuery {
  status?: string;
  severity?: string;
  assignee?: string;
  overdue?: boolean;
  cursor?: string;
  limit?: number;
}

export interface TransitionBody {
  to: string;
  /** The status the caller saw: a move from any other is refused (someone moved the item meanwhile). */
  from?: string;
  resolution?: string | null;
  note?: string | null;
  case_id?: string;
}

/**
 * A move asked from a status the item is no longer in: someone moved it since the caller looked
 * (another tab, a colleague). Applied from the new status, it would record a move the caller never
 * saw (a case just put into STR filing, closed as "no action"), so it is refused, with the status
 * the item is in now and the moves allowed from there.
 */
function staleRefusal(kind: ItemKind, status: string, body: TransitionBody): void {
  if (body.from === undefined || body.from === status) return;
  throw new AppError(
    'INVALID_TRANSITION',
    `The ${kind} is ${status} now, not ${body.from}: it was moved meanwhile`,
    { from: status, to: body.to, allowed: allowedTransitions(kind, status) },
  );
}

/** Whether the case an alert is linked to is closed (locked, as the alert is, for the move). */
async function caseIsClosed(s: LockedStatements, clientId: string, caseId: string): Promise<boolean> {
  const linked = await s.lockCase(clientId, caseId);
  return linked === undefined || isFinalStatus('case', linked.status);
}

const notFound = (what: string, id: string) => new AppError('NOT_FOUND', `${what} ${id} not found`);

/** A text the database could not store (NUL, unpaired surrogate) is the caller's 400, not our 500. */
function checkStorable(field: string, value: string | null | undefined): void {
  if (value === null || value === undefined || isStorable(value)) return;
  const reason = 'Must not contain NUL characters or unpaired surrogates';
  throw fieldError(field, reason);
}

/** The alerts and cases API (CONTRACT §5, §9): listings, details, transitions, assignment; tenant-scoped. */
export function createAlertsCasesService(deps: {
  repo: AlertsCasesRepo;
  clientContext: (clientId: string) => Promise<ClientContext | undefined>;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());

  function page<T extends { due_at: Date; id: string }>(rows: T[], limit: number) {
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const next = rows.length > limit && last ? encodeCursor({ dueAt: iso(last.due_at), id: last.id }) : null;
    return { items, next_cursor: next };
  }

  function filterOf(kind: ItemKind, q: ListQuery, at: Date): ListFilter {
    return { ...q, now: at, finalStatuses: FINAL[kind] };
  }

  async function findCase(clientId: string, idOrNumber: string) {
    if (UUID.test(idOrNumber)) return deps.repo.caseById(clientId, idOrNumber.toLowerCase());
    if (parseCaseNumber(idOrNumber)) return deps.repo.caseByNumber(clientId, idOrNumber);
    return undefined;
  }

  async function caseDetail(clientId: string, row: CaseRow) {
    const ids = await deps.repo.alertIdsOf(clientId, [row.id]);
    return caseView(row, ids.get(row.id) ?? [], now());
  }

  return {
    async listAlerts(p: Principal, q: ListQuery) {
      const at = now();
      const after: After | undefined = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
      const limit = q.limit ?? 50;
      const rows = await deps.repo.listAlerts(p.clientId, filterOf('alert', q, at), after, limit + 1);
      const { items, next_cursor } = page(rows, limit);
      return { items: items.map((r) => alertView(r, at)), next_cursor };
    },

    async getAlert(p: Principal, id: string) {
      const row = UUID.test(id) ? await deps.repo.alert(p.clientId, id.toLowerCase()) : undefined;
      if (!row) throw notFound('Alert', id);
      return alertView(row, now());
    },

    /** Moves an alert; `escalated` opens a case, or joins the caller's `case_id`. */
    async transitionAlert(p: Principal, id: string, body: TransitionBody, by: Actor) {
      checkStorable('note', body.note);
      if (!UUID.test(id)) throw notFound('Alert', id);
      const ctx = await deps.clientContext(p.clientId);
      await deps.repo.inTransaction(async (s) => {
        const alert = await s.lockAlert(p.clientId, id.toLowerCase());
        if (!alert) throw notFound('Alert', id);
        const at = changeTime(now(), alert.updated_at);
        staleRefusal('alert', alert.status, body);
        const r = transition('alert', alert.status, { ...body, actor: by.id, actorName: by.name, at });
        if (!r.ok) throw refusal('alert', alert.status, body.to, r);
        if (body.case_id !== undefined && r.status !== 'escalated')
          throw fieldError('case_id', 'Only with to = escalated');
        let caseId = alert.case_id;
        if (r.status === 'escalated' && body.case_id !== undefined) {
          const joined = await s.lockCase(p.clientId, body.case_id.toLowerCase());
          if (!joined) throw notFound('Case', body.case_id);
          if (joined.status === 'closed')
            throw new AppError(
              'INVALID_REQUEST',
              `Invalid request: case_id: Case ${joined.case_number} is closed`,
              {
                field: 'case_id',
                reason: 'Case is closed',
                errors: ['case_id: Case is closed'],
              },
            );
          if (caseId !== joined.id)
            await s.joinCase(joined.id, { rule_ids: alert.rule_ids, at: at.toISOString() });
          caseId = joined.id;
        } else if (
          r.status === 'escalated' &&
          (caseId === null || (await caseIsClosed(s, p.clientId, caseId)))
        ) {
          // Escalation opens a case unless the alert already belongs to an open one (a webhook or
          // an evaluation opened it); escalating into a closed case would bury the alert.
          const cal = clientCalendar({
            timeZone: ctx?.settings.time_zone,
            holidayCountry: ctx?.settings.holiday_country,
          });
          const [opened] = await s.openCase({
            id: randomUUID(),
            client_id: p.clientId,
            reason: truncate(`Escalated from alert ${alert.id}${body.note ? `: ${body.note}` : ''}`, 500),
            // The STR case is the one the MICA-RPT-001 evaluation opened (CONTRACT §5): a case opened
            // by escalating its alert (after that case was closed) is not a second STR case, whose
            // sweep would record a missed filing deadline the first one may well have met.
            is_str: false,
            rule_ids: alert.rule_ids,
            evaluation_id: alert.evaluation_id,
            due_at: caseDueAt(at, cal).toISOString(),
            created_at: at.toISOString(),
            actor: by.id,
            actor_name: by.name,
          });
          caseId = opened!.id;
        }
        // The case it leaves (open or closed, an STR case already filed) keeps listing it.
        if (alert.case_id !== null && caseId !== alert.case_id)
          await s.recordFormerAlert({
            client_id: p.clientId,
            case_id: alert.case_id,
            alert_id: alert.id,
            at: at.toISOString(),
          });
        await s.updateAlert(alert.id, {
          status: r.status,
          resolution: r.resolution,
          case_id: caseId,
          at: at.toISOString(),
          entry: { ...r.historyEntry, case_id: caseId },
        });
      });
      return this.getAlert(p, id);
    },

    /**
     * The cases listing. The plain API has no severity filter (a stray `severity` query parameter is
     * ignored); the console's queue passes one in `opts`, checked by its route.
     */
    async listCases(p: Principal, q: ListQuery, opts: { severity?: string } = {}) {
      checkStorable('assignee', q.assignee);
      const at = now();
      const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
      const limit = q.limit ?? 50;
      const filter = { ...filterOf('case', q, at), severity: opts.severity };
      const rows = await deps.repo.listCases(p.clientId, filter, after, limit + 1);
      const { items, next_cursor } = page(rows, limit);
      const ids = await deps.repo.alertIdsOf(
        p.clientId,
        items.map((r) => r.id),
      );
      return { items: items.map((r) => caseView(r, ids.get(r.id) ?? [], at)), next_cursor };
    },

    /** One case by id or case number, with its alert ids and history. */
    async getCase(p: Principal, idOrNumber: string) {
      const row = await findCase(p.clientId, idOrNumber);
      if (!row) throw notFound('Case', idOrNumber);
      return caseDetail(p.clientId, row);
    },

    async transitionCase(p: Principal, idOrNumber: string, body: TransitionBody, by: Actor) {
      checkStorable('note', body.note);
      const found = await findCase(p.clientId, idOrNumber);
      if (!found) throw notFound('Case', idOrNumber);
      if (body.case_id !== undefined) throw fieldError('case_id', 'Only for alerts');
      await deps.repo.inTransaction(async (s) => {
        const c = await s.lockCase(p.clientId, found.id);
        if (!c) throw notFound('Case', idOrNumber);
        const at = changeTime(now(), c.updated_at);
        staleRefusal('case', c.status, body);
        const r = transition('case', c.status, { ...body, actor: by.id, actorName: by.name, at });
        if (!r.ok) throw refusal('case', c.status, body.to, r);
        await s.updateCase(c.id, {
          status: r.status,
          resolution: r.resolution,
          assignee: c.assignee,
          at: at.toISOString(),
          entry: r.historyEntry,
        });
      });
      return this.getCase(p, found.id);
    },

    /** Assigns a case to one of the client's compliance officers; recorded in its history. */
    async assignCase(p: Principal, idOrNumber: string, officer: string, by: Actor) {
      checkStorable('officer', officer);
      const found = await findCase(p.clientId, idOrNumber);
      if (!found) throw notFound('Case', idOrNumber);
      await deps.repo.inTransaction(async (s) => {
        const c = await s.lockCase(p.clientId, found.id);
        if (!c) throw notFound('Case', idOrNumber);
        const at = changeTime(now(), c.updated_at);
        if (isFinalStatus('case', c.status))
          throw new AppError('INVALID_TRANSITION', `Case ${c.case_number} is ${c.status}`, {
            from: c.status,
            allowed: [],
          });
        if (!(await s.isOfficer(p.clientId, officer))) {
          const reason = `Must be one of the client's officers: ${(await s.officers(p.clientId)).join(', ') || '(none)'}`;
          throw fieldError('officer', reason);
        }
        // Already theirs: nothing changes, and the history gains no entry that says nothing.
        if (c.assignee === officer) return;
        await s.updateCase(c.id, {
          status: c.status,
          resolution: c.resolution,
          assignee: officer,
          at: at.toISOString(),
          entry: {
            at: at.toISOString(),
            actor: by.id,
            actor_name: by.name,
            from: c.status,
            to: c.status,
            note: `assigned to ${officer}${c.assignee ? ` (was ${c.assignee})` : ''}`,
          },
        });
      });
      return this.getCase(p, found.id);
    },
  };
}
export type AlertsCasesService = ReturnType<typeof createAlertsCasesService>;
