import { isStorableInstant, parseIsoInstant, STORABLE_INSTANT_RANGE } from '../domain/rules/facts.ts';
import { AppError, fieldError, validationError } from '../errors.ts';
import type {
  AuditCursor,
  AuditFilter,
  AuditQueryRepo,
  AuditRow,
  ExportEvaluation,
} from '../storage/audit-query.repo.ts';
import { isCursorCount, isCursorText, isCursorTime, readCursor, writeCursor } from './cursor.ts';

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
  'high_risk_list_date',
] as const;

export interface AuditQuery {
  from?: string;
  to?: string;
  rule_id?: string;
  customer_id?: string;
  transaction_id?: string;
  evaluation_id?: string;
  /** Only evaluations at chain positions after this one (what is new since an earlier answer). */
  after_seq?: number;
  /** Only evaluations at chain positions up to this one; by default the chain head when first read. */
  through_seq?: number;
  cursor?: string;
  limit?: number;
}

/** What a cursor carries of its listing's cut (chainCut), so that every page reads the same one. */
export interface CarriedCut {
  /** the client whose chain the cut is of */
  c?: string;
  /** the query's after_seq, which the cut was resolved for */
  a?: number;
  /** through_seq */
  h?: number;
  /** since */
  lo?: string;
  /** until */
  hi?: string;
}

/**
 * The header of every audit answer (and of the operator API's audit exports, which the CLI reports):
 * the chain position it is complete through (chainCut).
 */
export const CHAIN_SEQ_HEADER = 'x-audit-chain-seq';

/** A chain position as a cursor carries it. */
const isChainPosition = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** A cursor's carried cut, when it has a valid one (every part optional). */
export const isCarriedCut = (c: CarriedCut) =>
  (c.c === undefined || isCursorText(c.c)) &&
  (c.a === undefined || isChainPosition(c.a)) &&
  (c.h === undefined || isChainPosition(c.h)) &&
  (c.lo === undefined || isCursorTime(c.lo)) &&
  (c.hi === undefined || isCursorTime(c.hi));

/** The cut a page was read with, to hand on in its cursor. */
export const carriedCutOf = (f: AuditFilter): CarriedCut => ({
  c: f.client_id,
  a: f.after_seq,
  h: f.through_seq,
  lo: f.since,
  hi: f.until,
});

/** Reads a client's chain (AuditQueryRepo). */
type ChainReader = Pick<AuditQueryRepo, 'chainHead' | 'spanOf'>;

/**
 * The cut of an audit answer: every evaluation of the client's chain up to one position, read once
 * when the answer (or its first page) starts. A client's chain positions are given out in commit
 * order, one per evaluation, and its head moves in the same transaction as the rows it links, so
 * when the head reads n every position up to n is committed. Hence an answer through n is final
 * (asked again, the same filters give the same rows while retention keeps them), and
 * `after_seq=n` next time gives exactly what was committed since: no row missed or repeated,
 * which a window of `evaluated_at` cannot promise (a row is stamped a moment before it commits).
 *
 * A query by positions (after_seq or through_seq given) also reads the time span of its range,
 * through the chain index, so that the page and export scans stay within it (chainConditions).
 * `carried`: the cut of the listing a page's cursor continues, taken as it is; refused when the
 * query asks for other positions (it would hold the span of another range).
 */
export async function chainCut(
  chain: ChainReader,
  filter: AuditFilter,
  carried?: CarriedCut,
): Promise<AuditFilter> {
  const after = filter.after_seq;
  if (carried?.h !== undefined) {
    // Another client's cursor would give its position and time span to this client's listing.
    if (carried.c !== undefined && carried.c !== filter.client_id)
      throw fieldError('cursor', 'Not a cursor from this API');
    if (carried.a !== after || (filter.through_seq !== undefined && filter.through_seq !== carried.h))
      throw fieldError(
        'cursor',
        'From a listing of other chain positions: pass the same after_seq and through_seq as its first page',
      );
    // The cut is taken as it is (its span saves the scan a read), but the position it promises in
    // the answer's header must exist: a cursor edited past the head would have the answer claim
    // positions never committed (and would let in rows committed after the listing began).
    if (
      carried.h > (await chain.chainHead(filter.client_id)) ||
      (carried.a !== undefined && carried.a > carried.h)
    )
      throw fieldError('cursor', 'Not a cursor from this API');
    return { ...filter, through_seq: carried.h, since: carried.lo, until: carried.hi };
  }
  const head = await chain.chainHead(filter.client_id);
  const beyond = (field: string) =>
    `${field}: Beyond the chain head: the last position committed for this client is ${head}`;
  const problems: string[] = [];
  if (filter.through_seq !== undefined && filter.through_seq > head) problems.push(beyond('through_seq'));
  if (after !== undefined && after > head) problems.push(beyond('after_seq'));
  if (after !== undefined && filter.through_seq !== undefined && after > filter.through_seq)
    problems.push('after_seq: Must not be after through_seq');
  if (problems.length > 0) throw validationError(problems);
  const through = filter.through_seq ?? head;
  if (after === undefined && filter.through_seq === undefined) return { ...filter, through_seq: through };
  const span = await chain.spanOf(filter.client_id, after ?? 0, through);
  // Nothing in the range: a bound no row meets, so that the scan ends at once.
  return { ...filter, through_seq: through, since: span?.low ?? 'infinity', until: span?.high };
}

/**
 * The filters' syntax: a date, or a date-time with seconds and fraction optional and a zone (an
 * offset-less time would be read in some zone the caller did not say); the zone as the rules' date
 * fields take it (Z, ±hh, ±hhmm, ±hh:mm).
 */
const INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?))?$/;

/**
 * ISO 8601 date-time; a date alone means its UTC midnight (CONTRACT §9). Strict: the date and time
 * written must exist (2026-02-30, 2026-13-01, T24:00 are refused, not rolled over).
 */
export function parseInstant(field: string, v: string | undefined): Date | undefined {
  if (v === undefined || v === '') return undefined;
  if (!INSTANT.test(v))
    throw fieldError(
      field,
      // A date-time without a zone is the usual near miss: say that the zone is what is missing.
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(v)
        ? 'Must be an ISO 8601 date or date-time; a date-time needs its zone (Z or ±hh:mm)'
        : 'Must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone (YYYY-MM-DDThh:mm[:ss]Z)',
    );
  // The engine's reader refuses what does not exist (2026-02-30 is not rolled over to 2 March).
  const d = parseIsoInstant(v);
  if (d === undefined) throw fieldError(field, 'Must be an existing calendar date and time of day');
  if (!isStorableInstant(d)) throw fieldError(field, STORABLE_INSTANT_RANGE);
  // Audit times are stored to the millisecond; a finer fraction is rounded up to the next one, so
  // that `from <= at < to` holds exactly (cut off instead, 03:01:36.1585 would take in .158).
  const frac = /T[^.]*\.(\d+)/.exec(v)?.[1];
  if (frac !== undefined && /[1-9]/.test(frac.slice(3)) && !/:60(?:\.|$)/.test(v)) {
    const up = new Date(d.getTime() + 1);
    // 9999-12-31T23:59:59.9999Z would round up into year 10000, which the store cannot take.
    if (!isStorableInstant(up)) throw fieldError(field, `${STORABLE_INSTANT_RANGE}, to the millisecond`);
    return up;
  }
  return d;
}

/** The problems of a query's `from` and `to`, every one (CONTRACT §3: all at once); none when both read. */
export function rangeProblems(q: { from?: string; to?: string }): string[] {
  return problemsOf(readRange(q).errors);
}

const problemsOf = (errors: AppError[]) =>
  errors.flatMap((e) => (e.details?.errors as string[] | undefined) ?? []);

/** `from` and `to` read once, with each that does not read (or `from` after `to`) as its field's 400. */
function readRange(q: { from?: string; to?: string }) {
  const errors: AppError[] = [];
  const read = (field: 'from' | 'to') => {
    try {
      return parseInstant(field, q[field]);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      errors.push(e);
      return undefined;
    }
  };
  const from = read('from');
  const to = read('to');
  if (from && to && from > to) errors.push(fieldError('from', 'Must not be after to'));
  return { from, to, errors };
}

/** `from` and `to` read, or a 400 naming the bad one, or listing both. */
export function parseRange(q: { from?: string; to?: string }): { from?: Date; to?: Date } {
  const { from, to, errors } = readRange(q);
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw validationError(problemsOf(errors));
  return { from, to };
}

function encodeCursor(row: AuditRow, filter: AuditFilter): string {
  return writeCursor({
    at: row.evaluated_at,
    id: row.evaluation_id,
    pos: row.rule_position,
    ...carriedCutOf(filter),
  } satisfies AuditCursor & CarriedCut);
}

function decodeCursor(s: string | undefined): (AuditCursor & CarriedCut) | undefined {
  if (!s) return undefined;
  return readCursor<AuditCursor & CarriedCut>(
    s,
    (c) => isCursorTime(c.at) && isCursorText(c.id) && isCursorCount(c.pos) && isCarriedCut(c),
  );
}

/** A row as exported: the internal ordering column dropped. */
function publicRow(r: AuditRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of AUDIT_COLUMNS) out[c] = r[c];
  return out;
}

/**
 * Quoted when it holds a quote, comma, semicolon or line break. The semicolon: a spreadsheet set to
 * a European locale (German, French, Dutch Excel) splits CSV on it, so an unquoted `x;=1+2` would
 * become a cell `=1+2` past the apostrophe that FORMULA_START puts at the start of the whole value.
 */
const NEEDS_QUOTES = /[",;\r\n]/;

/**
 * Text a spreadsheet would run as a formula (OWASP "CSV injection"): quoting does not stop it, a
 * leading apostrophe does. Ids and notes are the callers' and vendors' text, so an export opened in
 * Excel must not run `=HYPERLINK(…)`. The JSON exports carry such values unchanged.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvText(s: string): string {
  const text = FORMULA_START.test(s) ? `'${s}` : s;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV cell: empty for null, objects as JSON, text escaped (csvText). */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return csvText(typeof v === 'object' ? JSON.stringify(v) : String(v));
}

/**
 * The CSV lines of one stored evaluation (what csvLine gives for each of rowsOf's rows, built
 * without the row objects): the evaluation's own cells are escaped once, not once per rule, and
 * the cells of repeated condition sets come from `memo`. Exports spend their time here.
 */
export function csvLinesOf(
  e: ExportEvaluation,
  ruleId: string | undefined,
  memo: Map<string, string>,
): string {
  const results = (JSON.parse(e.response) as { results?: unknown }).results;
  if (!Array.isArray(results)) return '';
  const head = `${csvCell(e.client_id)},${csvCell(e.evaluation_id)},`;
  const mid = `,${csvCell(e.trigger_type)},${csvCell(e.trigger_entity_type)},${csvCell(e.trigger_entity_id)},${csvCell(e.evaluated_at)},${csvCell(e.transaction_blocked)},${csvCell(e.alert_generated)},`;
  const tail = `,${csvCell(e.evaluator_id)},${csvCell(e.customer_id)},${csvCell(e.rule_set_version)},${csvCell(e.high_risk_list_date)}\r\n`;
  let out = '';
  for (const value of results) {
    const r = (value ?? {}) as Record<string, unknown>;
    const rule = textOf(r.rule_id);
    if (ruleId !== undefined && rule !== ruleId) continue;
    const met = r.conditions_met === undefined ? null : r.conditions_met;
    const metJson = JSON.stringify(met);
    let conditions = memo.get(metJson);
    if (conditions === undefined) {
      const keys = met !== null && typeof met === 'object' && !Array.isArray(met) ? Object.keys(met) : [];
      conditions = `${csvCell(keys)},${csvCell(met)}`;
      if (memo.size < 10_000) memo.set(metJson, conditions);
    }
    const actions = r.actions_to_execute;
    const actionsCell = Array.isArray(actions) && actions.length === 0 ? '[]' : csvCell(actions);
    out += `${head}${csvCell(rule)},${csvCell(textOf(r.result))}${mid}${conditions},${actionsCell},${csvCell(textOf(r.severity))}${tail}`;
  }
  return out;
}

/** `->>` of PostgreSQL: a string as it is, other JSON values as their JSON text, absent as null. */
function textOf(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * The audit rows of one stored evaluation, one per rule result, exactly as the view
 * mica_rule_evaluations (and the paged query) derives them; only the given rule's when filtered.
 */
export function rowsOf(e: ExportEvaluation, ruleId?: string): AuditRow[] {
  const results = (JSON.parse(e.response) as { results?: unknown }).results;
  if (!Array.isArray(results)) return [];
  const rows: AuditRow[] = [];
  results.forEach((value, i) => {
    const r = (value ?? {}) as Record<string, unknown>;
    const rule_id = textOf(r.rule_id);
    if (ruleId !== undefined && rule_id !== ruleId) return;
    const met = r.conditions_met === undefined ? null : r.conditions_met;
    rows.push({
      client_id: e.client_id,
      evaluation_id: e.evaluation_id,
      rule_id: rule_id as string,
      result: textOf(r.result) as string,
      trigger_type: e.trigger_type,
      trigger_entity_type: e.trigger_entity_type,
      trigger_entity_id: e.trigger_entity_id,
      evaluated_at: e.evaluated_at,
      transaction_blocked: e.transaction_blocked,
      alert_generated: e.alert_generated,
      conditions_evaluated:
        met !== null && typeof met === 'object' && !Array.isArray(met) ? Object.keys(met) : [],
      conditions_met: met as Record<string, boolean>,
      actions_executed: (r.actions_to_execute === undefined ? null : r.actions_to_execute) as string[],
      severity: textOf(r.severity) as string,
      evaluator_id: e.evaluator_id,
      customer_id: e.customer_id,
      rule_set_version: e.rule_set_version,
      high_risk_list_date: e.high_risk_list_date,
      rule_position: i + 1,
    });
  });
  return rows;
}

/** One CSV line of an audit row, in AUDIT_COLUMNS order (the reference csvLinesOf is held to). */
export function csvLine(r: AuditRow): string {
  let line = '';
  for (let i = 0; i < AUDIT_COLUMNS.length; i++) line += (i === 0 ? '' : ',') + csvCell(r[AUDIT_COLUMNS[i]!]);
  return `${line}\r\n`;
}

/** The audit trail of a client: pages for the API, and exports streamed in chunks. */
/** The audit filter of a query (its dates checked), for the caller's client. */
export function auditFilterOf(clientId: string, q: AuditQuery): AuditFilter {
  const { from, to } = parseRange(q);
  return {
    client_id: clientId,
    from,
    to,
    rule_id: q.rule_id,
    customer_id: q.customer_id,
    transaction_id: q.transaction_id,
    evaluation_id: q.evaluation_id,
    after_seq: q.after_seq,
    through_seq: q.through_seq,
  };
}

export function createAuditService(deps: { audit: AuditQueryRepo }) {
  return {
    /**
     * The filter of a query, its dates checked and its cut resolved (chainCut): the first step of
     * every answer, whose `through_seq` the route reports before the rows.
     */
    async filter(clientId: string, q: AuditQuery, paged: boolean): Promise<AuditFilter> {
      const filter = auditFilterOf(clientId, q);
      // A page's cursor carries the cut of the listing's first page. An export is every match
      // (no pages): its cursor is only checked, a cursor that is not one being the caller's error.
      const cursor = decodeCursor(q.cursor);
      return chainCut(deps.audit, filter, paged ? cursor : undefined);
    },

    /** One page, newest first, of a filter from `filter`. */
    async list(filter: AuditFilter, q: Pick<AuditQuery, 'cursor' | 'limit'>) {
      const limit = Math.min(Math.max(q.limit ?? 100, 1), 1000);
      const rows = await deps.audit.page(filter, decodeCursor(q.cursor), limit);
      const last = rows.at(-1);
      return {
        items: rows.map(publicRow),
        next_cursor: rows.length === limit && last ? encodeCursor(last, filter) : null,
      };
    },

    /**
     * Every row of a filter from `filter` as CSV or a JSON array, produced chunk by chunk (keyset
     * pages), so an export of millions of rows never sits in memory.
     */
    export(filter: AuditFilter, format: 'csv' | 'json'): AsyncGenerator<string> {
      // Evaluations per page: about 8 rows each, so a page is some 4,000 rows.
      const pageSize = 500;
      return (async function* () {
        yield format === 'csv' ? `${AUDIT_COLUMNS.join(',')}\r\n` : '[';
        let first = true;
        const memo = new Map<string, string>();
        // The next page is read while this one is rendered: the database (the embedded engine's
        // own thread, or PostgreSQL) and this thread work at the same time; two pages at most are held.
        let next: Promise<ExportEvaluation[]> | undefined = deps.audit.exportPage(
          filter,
          undefined,
          pageSize,
        );
        while (next) {
          const page: ExportEvaluation[] = await next;
          const last = page.at(-1);
          next =
            page.length < pageSize || !last
              ? undefined
              : deps.audit.exportPage(filter, { at: last.cursor_at, id: last.evaluation_id }, pageSize);
          // A failed read ahead surfaces when it is awaited, not as an unhandled rejection meanwhile.
          next?.catch(() => {});
          let chunk = '';
          for (const e of page)
            if (format === 'csv') chunk += csvLinesOf(e, filter.rule_id, memo);
            else
              for (const r of rowsOf(e, filter.rule_id)) {
                chunk += (first ? '' : ',') + JSON.stringify(publicRow(r));
                first = false;
              }
          if (chunk !== '') yield chunk;
        }
        if (format === 'json') yield ']';
      })();
    },
  };
}
export type AuditService = ReturnType<typeof createAuditService>;
