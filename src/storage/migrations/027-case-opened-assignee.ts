import { type Kysely, sql } from 'kysely';
import { actionExecutionsView, OPENED_CASE_COLUMNS, OPENED_CASE_EVIDENCE } from './audit-views.ts';
import { runStatements } from './run-statements.ts';

/**
 * A created case is recorded with its id, reason, rules, time and the officer it was assigned to
 * (spec "Audit record"; issue: "cases created … are recorded and exportable"). The case row keeps
 * only its current assignee, so the officer it was opened for is kept in `opened_assignee`, and the
 * create_case action of the audit export carries all five (its rules: those its evaluation
 * triggered, which is what a case opens with; `rule_ids` grows when alerts join the case).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE cases ADD COLUMN opened_assignee text;
     ${actionExecutionsView('CREATE OR REPLACE', `,\n           e.chain_seq`, OPENED_CASE_EVIDENCE, OPENED_CASE_COLUMNS)}`,
  );
  // Stored cases: the officer their history shows they opened with, walking its assignment entries
  // (a move to the same status) back from the current assignee.
  const cases = (
    await sql<{ id: string; assignee: string | null; history: unknown }>`
      SELECT id, assignee, history FROM cases`.execute(db)
  ).rows;
  for (const c of cases) {
    const history = (typeof c.history === 'string' ? JSON.parse(c.history) : c.history) as HistoryEntry[];
    const opened = openedAssignee(c.assignee, Array.isArray(history) ? history : []);
    if (opened !== null)
      await sql`UPDATE cases SET opened_assignee = ${opened} WHERE id = ${c.id}`.execute(db);
  }
}

interface HistoryEntry {
  from?: string | null;
  to?: string;
  note?: string | null;
}

/**
 * The officer before an assignment entry, given the one after it: the notes are
 * `assigned to <after>[ (was <before>)]` (an assignment), `assigned to <after> (was <before>):
 * officer <before> removed` and `unassigned (was <before>): officer <before> removed, none left`
 * (an officer's removal). Read by position, not by pattern, since a name may hold ")" or "(was ".
 * undefined: a note of another shape.
 */
export function assigneeBefore(note: string, after: string | null): string | null | undefined {
  const head = after === null ? 'unassigned' : `assigned to ${after}`;
  if (!note.startsWith(head)) return undefined;
  const rest = note.slice(head.length);
  if (rest === '') return null;
  if (!rest.startsWith(' (was ')) return undefined;
  const inner = rest.slice(' (was '.length);
  for (const tail of ['): officer ', ')']) {
    if (tail === ')') {
      if (inner.endsWith(')')) return inner.slice(0, -1);
      continue;
    }
    // `<before>): officer <before> removed[, none left]`: <before> twice, so its length is known.
    const end = after === null ? ' removed, none left' : ' removed';
    if (!inner.endsWith(end)) continue;
    const body = inner.slice(0, -end.length);
    const n = (body.length - tail.length) / 2;
    if (
      Number.isInteger(n) &&
      n > 0 &&
      body.slice(n, n + tail.length) === tail &&
      body.slice(0, n) === body.slice(n + tail.length)
    )
      return body.slice(0, n);
  }
  return undefined;
}

/** The assignee a case opened with, from its current one and its history (null: none, or unknown). */
export function openedAssignee(current: string | null, history: HistoryEntry[]): string | null {
  let officer = current;
  for (let i = history.length - 1; i >= 1; i--) {
    const e = history[i]!;
    // Assignments are entries that leave the status as it was (status moves carry free notes; the
    // STR sweep's same-status notes say what it recorded).
    if (e.from !== e.to || typeof e.note !== 'string') continue;
    if (!e.note.startsWith('assigned to ') && !e.note.startsWith('unassigned')) continue;
    const before = assigneeBefore(e.note, officer);
    if (before === undefined) return null;
    officer = before;
  }
  return officer;
}
