import type { Kysely } from 'kysely';
import { actionExecutionsView, ruleEvaluationsView } from './audit-views.ts';
import { runStatements } from './run-statements.ts';

/**
 * The audit views show each row's chain position (`chain_seq`: the evaluation's link in its
 * client's hash chain). Positions are given out in commit order, and once a client's head reads n
 * every position up to n is committed; so "after position n" is a gap-free, repeat-free way to read
 * what is new, which a window of `evaluated_at` (stamped a moment before the commit) is not.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `${ruleEvaluationsView('CREATE OR REPLACE', `,\n           e.chain_seq`)}
     ${actionExecutionsView('CREATE OR REPLACE', `,\n           e.chain_seq`)}`,
  );
}
