import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Sanctions lists held by the service: operator-wide reference data, not per client. One row of
 * meta per source (ofac, eu, un); its `version` grows with every import, so a running instance
 * can tell cheaply that it must reload. Entries and addresses are replaced together, in the same
 * transaction as the meta row, so readers see the old list or the new one, never a mix.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE sanctions_lists (
      source text PRIMARY KEY CHECK (source IN ('ofac', 'eu', 'un')),
      version bigint NOT NULL,
      published_at text,
      imported_at timestamptz NOT NULL DEFAULT now(),
      imported_by text NOT NULL,
      entry_count integer NOT NULL,
      alias_count integer NOT NULL,
      address_count integer NOT NULL,
      screenable_address_count integer NOT NULL,
      files jsonb NOT NULL DEFAULT '[]'::jsonb
    );

    CREATE TABLE sanctions_entries (
      source text NOT NULL,
      entry_id text NOT NULL,
      name text NOT NULL,
      entry_type text NOT NULL,
      programs jsonb NOT NULL,
      aliases jsonb NOT NULL,
      PRIMARY KEY (source, entry_id)
    );

    -- Addresses as published, with where they can be screened (scope) and their comparison key.
    CREATE TABLE sanctions_addresses (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      source text NOT NULL,
      entry_id text NOT NULL,
      ticker text NOT NULL,
      address text NOT NULL,
      scope text NOT NULL,
      match_key text NOT NULL
    );
    CREATE INDEX sanctions_addresses_source_idx ON sanctions_addresses (source);
    CREATE INDEX sanctions_addresses_match_idx ON sanctions_addresses (scope, match_key);
  `,
  );
}
