import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The stored request and response of an evaluation (~2.5 KB together) push its row past the TOAST
 * threshold, so every audit insert compresses them. With PostgreSQL's default, pglz, that was about
 * 45 µs of the database's CPU per row on the 2-core machine; lz4 took about 21 µs (20,000 rows of
 * that size, inserted into otherwise identical tables), and reading them back for an export a third
 * less. Rows come out ~13 % larger (865 against 762 bytes for the response).
 *
 * PostgreSQL does not pass SET COMPRESSION on a partitioned table down to its existing partitions
 * (new ones take the parent's), so each is set too. PGlite is built without lz4: there the
 * statement fails with feature_not_supported and the texts stay as they were.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    DO $do$
    DECLARE
      r record;
    BEGIN
      ALTER TABLE evaluations ALTER COLUMN request SET COMPRESSION lz4, ALTER COLUMN response SET COMPRESSION lz4;
      FOR r IN SELECT inhrelid::regclass::text AS part FROM pg_inherits WHERE inhparent = 'evaluations'::regclass LOOP
        EXECUTE format('ALTER TABLE %s ALTER COLUMN request SET COMPRESSION lz4, ALTER COLUMN response SET COMPRESSION lz4', r.part);
      END LOOP;
    EXCEPTION WHEN feature_not_supported THEN
      RAISE NOTICE 'lz4 is not available here: the audit texts keep the default compression';
    END
    $do$;
  `,
  );
}
