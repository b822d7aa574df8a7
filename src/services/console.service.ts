import { localIsoDate } from '../domain/calendar/business-days.ts';
import { parseCaseNumber } from '../domain/cases/case-number.ts';
import { isFinalStatus, statusesOf } from '../domain/cases/state-machines.ts';
import { listCatalogue } from '../domain/rules/catalogue.ts';
import { AppError } from '../errors.ts';
import type { ClientsRepo } from '../storage/clients.repo.ts';
import type {
  ConsoleRepo,
  TransitionCursor,
  TransitionFilter,
  TransitionRow,
} from '../storage/console.repo.ts';
import type { AlertsCasesService, ListQuery } from './alerts-cases.service.ts';
import { alertView, iso, UUID } from './alerts-cases.views.ts';
import { csvText, parseRange } from './audit.service.ts';
import { isCursorCount, isCursorTime, readCursor, writeCursor } from './cursor.ts';
import type { ClientContext } from './evaluation.service.ts';
import type { Principal } from './keys.service.ts';

const DAY_MS = 86_400_000;
/** The linked alerts a case page shows; a case with more says how many are not shown. */
export const CASE_PAGE_ALERTS = 100;
/** The open cases an escalation offers to join, soonest due first. */
export const ESCALATION_CASES = 200;
const FINAL = {
  alerts: statusesOf('alert').filter((s) => isFinalStatus('alert', s)),
  cases: statusesOf('case').filter((s) => isFinalStatus('case', s)),
};

/** The columns of the transitions export, in order. */
export const TRANSITION_COLUMNS = [
  'at',
  'kind',
  'item_id',
  'case_id',
  'case_number',
  'actor',
  'actor_name',
  'from',
  'to',
  'note',
  'resolution',
] as const;

export interface TransitionQuery {
  from?: string;
  to?: string;
  kind?: 'case' | 'alert';
  case_id?: string;
  cursor?: string;
  limit?: number;
}

/** The first instant after `now` that falls on the next calendar day in `timeZone`. */
export function endOfLocalDay(now: Date, timeZone: string): Date {
  const today = localIsoDate(now, timeZone);
  let lo = now.getTime();
  let hi = lo + 2 * DAY_MS;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localIsoDate(new Date(mid), timeZone) === today) lo = mid;
    else hi = mid;
  }
  return new Date(hi);
}

function encodeCursor(r: TransitionRow): string {
  return writeCursor({ at: r.at, kind: r.kind, id: r.item_id, ord: r.ord } satisfies TransitionCursor);
}

function decodeCursor(s: string | undefined): TransitionCursor | undefined {
  if (s === undefined) return undefined;
  return readCursor<TransitionCursor>(
    s,
    (c) =>
      isCursorTime(c.at) &&
      (c.kind === 'case' || c.kind === 'alert') &&
      typeof c.id === 'string' &&
      UUID.test(c.id) &&
      isCursorCount(c.ord),
  );
}

/** A transition as exported: the internal ordering column dropped. */
function publicTransition(r: TransitionRow): Omit<TransitionRow, 'ord'> {
  const { ord: _ord, ...rest } = r;
  return rest;
}

/** Transition columns are all scalars, so a plain String() (audit rows' JSON cells don't arise here). */
function csvCell(v: unknown): string {
  return v === null || v === undefined ? '' : csvText(String(v));
}

/** What the web console reads beyond the plain API: the caller, live counts, rule statistics, the transitions trail. */
export function createConsoleService(deps: {
  repo: ConsoleRepo;
  clients: Pick<ClientsRepo, 'get' | 'officers'>;
  clientContext: (clientId: string) => Promise<ClientContext | undefined>;
  alertsCases: Pick<AlertsCasesService, 'listCases' | 'getCase' | 'getAlert'>;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());

  async function contextOf(clientId: string): Promise<ClientContext> {
    const ctx = await deps.clientContext(clientId);
    if (!ctx) throw new AppError('CLIENT_NOT_FOUND', `Client ${clientId} not found`);
    return ctx;
  }

  async function filterOf(p: Principal, q: TransitionQuery): Promise<TransitionFilter> {
    const { from, to } = parseRange(q);
    let caseId: string | undefined;
    if (q.case_id !== undefined) {
      const isUuid = UUID.test(q.case_id);
      if (isUuid || parseCaseNumber(q.case_id))
        caseId = await deps.repo.caseIdOf(p.clientId, q.case_id, isUuid);
      if (!caseId) throw new AppError('NOT_FOUND', `Case ${q.case_id} not found`);
    }
    return { client_id: p.clientId, from, to, kind: q.kind, case_id: caseId };
  }

  return {
    /** Who the key in use belongs to, and the client's officers (for assignment). */
    async whoami(p: Principal) {
      const client = await deps.clients.get(p.clientId);
      if (!client) throw new AppError('CLIENT_NOT_FOUND', `Client ${p.clientId} not found`);
      const ctx = await contextOf(p.clientId);
      return {
        client_id: p.clientId,
        client_name: client.name,
        key_id: p.keyId,
        role: p.role,
        environment: p.environment,
        sandbox: p.environment === 'sandbox',
        officer: p.officer,
        officers: await deps.clients.officers(p.clientId),
        time_zone: ctx.settings.time_zone,
      };
    },

    /** One evaluation of the caller's client with the request it answered; 404 for unknown and foreign ids. */
    async evaluation(p: Principal, evaluationId: string) {
      const row = UUID.test(evaluationId)
        ? await deps.repo.evaluation(p.clientId, evaluationId.toLowerCase())
        : undefined;
      if (!row) throw new AppError('NOT_FOUND', `Evaluation ${evaluationId} not found`);
      // Stored as json text on PGlite and parsed by pg: the same object either way.
      const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
      return { ...row, request: parse(row.request), response: parse(row.response) };
    },

    /** Open, overdue and due-today alerts and cases; "today" ends at midnight in the client's time zone. */
    async counts(p: Principal) {
      const ctx = await contextOf(p.clientId);
      const at = now();
      const tz = ctx.settings.time_zone;
      const [alerts, cases] = await Promise.all([
        deps.repo.counts('alerts', p.clientId, at, endOfLocalDay(at, tz), FINAL.alerts),
        deps.repo.counts('cases', p.clientId, at, endOfLocalDay(at, tz), FINAL.cases),
      ]);
      return { as_of: at.toISOString(), time_zone: tz, alerts, cases };
    },

    /**
     * The cases queue: the cases listing, each case with its severity (highest of its alerts and
     * evaluation), optionally only the cases of one severity.
     */
    async casesQueue(p: Principal, q: ListQuery) {
      // The severity filter is applied in the listing's query, so paging stays exact.
      const { severity, ...rest } = q;
      const page = await deps.alertsCases.listCases(p, rest, { severity });
      const sev = await deps.repo.caseSeverities(
        p.clientId,
        page.items.map((c) => c.id),
      );
      return {
        items: page.items.map((c) => ({ ...c, severity: sev.get(c.id) ?? null })),
        next_cursor: page.next_cursor,
      };
    },

    /**
     * A case page in one answer: the case (with its severity), its first CASE_PAGE_ALERTS linked
     * alerts as the alert API serves them (payloads as delivered: write the answer with
     * stringifyWithRaw), how many are not shown, the evaluations of the case and of those alerts
     * (as returned), and the articles of the rules involved. 404 for unknown and foreign ids alike.
     */
    async casePage(p: Principal, idOrNumber: string) {
      const ctx = await contextOf(p.clientId);
      const c = await deps.alertsCases.getCase(p, idOrNumber);
      const shownIds = c.alert_ids.slice(0, CASE_PAGE_ALERTS);
      const [rows, sev] = await Promise.all([
        deps.repo.alertsByIds(p.clientId, shownIds),
        deps.repo.caseSeverities(p.clientId, [c.id]),
      ]);
      const at = now();
      const byId = new Map(rows.map((r) => [r.id, r]));
      const alerts = shownIds.flatMap((id) => {
        const r = byId.get(id);
        return r ? [alertView(r, at)] : [];
      });
      const evalIds = [
        ...new Set([c.evaluation_id, ...alerts.map((a) => a.evaluation_id)].filter((x): x is string => !!x)),
      ];
      const stored = await deps.repo.evaluationResponses(p.clientId, evalIds);
      // Stored as json text on PGlite and parsed by pg: the same object either way.
      const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
      const evaluations = evalIds.flatMap((id) => (stored.has(id) ? [parse(stored.get(id))] : []));
      const ruleIds = new Set<string>(c.rule_ids);
      for (const e of evaluations as Array<{ results?: Array<{ rule_id?: unknown }> }>)
        for (const r of e.results ?? []) if (typeof r.rule_id === 'string') ruleIds.add(r.rule_id);
      const rule_articles: Record<string, number> = {};
      for (const r of listCatalogue(ctx.settings)) if (ruleIds.has(r.id)) rule_articles[r.id] = r.article;
      return {
        case: { ...c, severity: sev.get(c.id) ?? null },
        alerts,
        alerts_total: c.alert_ids.length,
        alerts_not_shown: c.alert_ids.length - shownIds.length,
        evaluations,
        rule_articles,
      };
    },

    /**
     * What escalating an alert can do: the case it is in (if any), and the client's open cases it may
     * join (soonest due first, at most ESCALATION_CASES, with how many are not shown).
     */
    async escalationTargets(p: Principal, alertId: string) {
      const a = await deps.alertsCases.getAlert(p, alertId);
      const [rows, current] = await Promise.all([
        deps.repo.openCases(p.clientId, FINAL.cases, ESCALATION_CASES),
        // Its case is the caller's too; gone only if removed meanwhile.
        a.case_id
          ? deps.alertsCases.getCase(p, a.case_id).catch((e: unknown) => {
              if (e instanceof AppError && e.code === 'NOT_FOUND') return undefined;
              throw e;
            })
          : undefined,
      ]);
      const total = rows[0]?.total ?? 0;
      return {
        alert_id: a.id,
        status: a.status,
        case: current
          ? {
              id: current.id,
              case_number: current.case_number,
              status: current.status,
              open: !isFinalStatus('case', current.status),
            }
          : null,
        open_cases: rows.map((r) => ({
          id: r.id,
          case_number: r.case_number,
          status: r.status,
          assignee: r.assignee,
          reason: r.reason,
          due_at: iso(r.due_at),
        })),
        open_cases_not_shown: total - rows.length,
      };
    },

    /** Evaluations and triggers per rule and UTC day over the last `days` days (today included). */
    async ruleStats(p: Principal, days: number) {
      const ctx = await contextOf(p.clientId);
      const at = now();
      const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()) + DAY_MS);
      const start = new Date(end.getTime() - days * DAY_MS);
      const dates = Array.from({ length: days }, (_, i) =>
        new Date(start.getTime() + i * DAY_MS).toISOString().slice(0, 10),
      );
      const index = new Map(dates.map((d, i) => [d, i]));
      const rows = await deps.repo.ruleDays(p.clientId, start, end);
      const catalogue = listCatalogue(ctx.settings);
      const series = new Map(
        catalogue.map((r) => [
          r.id,
          { rule_id: r.id, name: r.name, evaluations: dates.map(() => 0), triggers: dates.map(() => 0) },
        ]),
      );
      for (const r of rows) {
        const i = index.get(r.day);
        if (i === undefined) continue;
        let s = series.get(r.rule_id);
        if (!s) {
          // A rule that has left the catalogue still shows what it did.
          s = {
            rule_id: r.rule_id,
            name: r.rule_id,
            evaluations: dates.map(() => 0),
            triggers: dates.map(() => 0),
          };
          series.set(r.rule_id, s);
        }
        s.evaluations[i] = r.evaluations;
        s.triggers[i] = r.triggers;
      }
      return {
        from: start.toISOString(),
        to: end.toISOString(),
        days: dates,
        rules: [...series.values()].map((s) => ({
          ...s,
          total_evaluations: s.evaluations.reduce((a, b) => a + b, 0),
          total_triggers: s.triggers.reduce((a, b) => a + b, 0),
        })),
      };
    },

    /** One page of case and alert transitions, oldest first. */
    async transitions(p: Principal, q: TransitionQuery) {
      const filter = await filterOf(p, q);
      const limit = Math.min(Math.max(q.limit ?? 100, 1), 1000);
      const rows = await deps.repo.transitions(filter, decodeCursor(q.cursor), limit);
      const last = rows.at(-1);
      return {
        items: rows.map(publicTransition),
        next_cursor: rows.length === limit && last ? encodeCursor(last) : null,
      };
    },

    /** Every matching transition as CSV or a JSON array, in keyset pages; the filter is checked before the first chunk. */
    async exportTransitions(
      p: Principal,
      q: TransitionQuery,
      format: 'csv' | 'json',
    ): Promise<AsyncGenerator<string>> {
      const filter = await filterOf(p, q);
      const repo = deps.repo;
      const pageSize = 2000;
      return (async function* () {
        yield format === 'csv' ? `${TRANSITION_COLUMNS.join(',')}\r\n` : '[';
        let cursor: TransitionCursor | undefined;
        let first = true;
        for (;;) {
          const rows = await repo.transitions(filter, cursor, pageSize);
          if (rows.length === 0) break;
          let chunk = '';
          for (const r of rows) {
            if (format === 'csv') chunk += `${TRANSITION_COLUMNS.map((c) => csvCell(r[c])).join(',')}\r\n`;
            else {
              const row: Record<string, unknown> = {};
              for (const c of TRANSITION_COLUMNS) row[c] = r[c];
              chunk += (first ? '' : ',') + JSON.stringify(row);
              first = false;
            }
          }
          yield chunk;
          if (rows.length < pageSize) break;
          const last = rows.at(-1)!;
          cursor = { at: last.at, kind: last.kind, id: last.item_id, ord: last.ord };
        }
        if (format === 'json') yield ']';
      })();
    },
  };
}
export type ConsoleService = ReturnType<typeof createConsoleService>;
