import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The alerts a case held before they were escalated into another case: an alert has one current
 * case (`alerts.case_id`), and moving it took it out of the first case's `alert_ids` without a
 * trace (an STR case filed with its alert lost it). A case lists its current and former alerts.
 * No foreign keys: inserting one would take a share lock on the case left while the case joined is
 * locked for update, and two escalations crossing each other's cases would deadlock.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE IF NOT EXISTS case_former_alerts (
       client_id text NOT NULL,
       case_id uuid NOT NULL,
       alert_id uuid NOT NULL,
       left_at timestamptz NOT NULL,
       PRIMARY KEY (case_id, alert_id)
     );`,
  );
}
