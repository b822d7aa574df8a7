import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The CASP directory (authorised crypto-asset service providers) used to verify travel-rule
 * counterparties. It is operator-wide reference data, like a sanctions list, not a client's data:
 * one row per LEI. Each import is recorded; the latest import id is the directory's version, which
 * every instance polls to know when to reload.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE casp_directory (
      lei text PRIMARY KEY CHECK (lei ~ '^[0-9A-Z]{18}[0-9]{2}$'),
      name text NOT NULL,
      country text NOT NULL,
      extra jsonb NOT NULL DEFAULT '{}'::jsonb
    );
    CREATE TABLE casp_directory_imports (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      source text NOT NULL,
      row_count integer NOT NULL,
      sha256 text NOT NULL,
      actor text NOT NULL,
      imported_at timestamptz NOT NULL DEFAULT now()
    );
  `,
  );
}
