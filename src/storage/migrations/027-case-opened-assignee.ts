import type { Kysely } from 'kysely';
import { actionExecutionsView, OPENED_CASE_COLUMNS, OPENED_CASE_EVIDENCE } from './audit-views.ts';
import { runStatements } from './run-statements.ts';

/**
 * A created case is recorded with its id, reason, rules, time and the officer it was assigned to
 * (spec "Audit record"; issue: "cases created … are recorded and exportable"). The case row keeps
 * only its current assignee, so the officer it was opened for is kept in `opened_assignee`, and the
 * create_case action of the audit export carries all five. Stored cases get the officer their
 * history shows: the "(was …)" of their first assignment entry, or, with none, the current assignee
 * (an assignment entry without "(was …)" means the case opened unassigned).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE cases ADD COLUMN opened_assignee text;
     UPDATE cases c
        SET opened_assignee = CASE
              WHEN first.note IS NULL THEN c.assignee
              ELSE substring(first.note FROM '\\(was ([^)]*)\\)')
            END
       FROM cases c2
       LEFT JOIN LATERAL (
         SELECT h.value->>'note' AS note
           FROM jsonb_array_elements(c2.history) WITH ORDINALITY AS h(value, i)
          WHERE h.value->>'note' LIKE 'assigned to %' OR h.value->>'note' LIKE 'unassigned %'
          ORDER BY h.i LIMIT 1) first ON true
      WHERE c2.id = c.id;
     ${actionExecutionsView('CREATE OR REPLACE', `,\n           e.chain_seq`, OPENED_CASE_EVIDENCE, OPENED_CASE_COLUMNS)}`,
  );
}
