import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Evaluation batches move their clients' chain heads optimistically: a writer links a batch to the
 * heads it last knew and the batch's one statement moves each head only from that link. This
 * function turns "not every head was where the batch expected it" into an error, so that the whole
 * statement (rows, window, follow-ups) rolls back and the writer re-reads the heads and relinks.
 * serialization_failure is the SQLSTATE a client retries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE FUNCTION mica_expect_chain_heads(moved bigint, expected integer) RETURNS boolean
      LANGUAGE plpgsql AS $fn$
    BEGIN
      IF moved <> expected THEN
        RAISE EXCEPTION 'audit chain head moved: % of % heads were at the expected link', moved, expected
          USING ERRCODE = 'serialization_failure';
      END IF;
      RETURN true;
    END
    $fn$;
    `,
  );
}
