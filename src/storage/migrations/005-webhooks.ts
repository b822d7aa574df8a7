import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Webhook registrations and their encrypted secrets, the service's own settings (the generated
 * secret-encryption key on PostgreSQL), the raw bytes of every delivery, and the indexes of the
 * alert and case listings and of the STR sweep.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE webhook_registrations (
      id text PRIMARY KEY,
      client_id text NOT NULL REFERENCES clients(client_id),
      kind text NOT NULL CHECK (kind IN ('txmon-a', 'txmon-b', 'kyc', 'screening')),
      created_at timestamptz NOT NULL DEFAULT now(),
      created_by text NOT NULL
    );
    CREATE UNIQUE INDEX webhook_registrations_client_kind_idx ON webhook_registrations (client_id, kind);
    CREATE INDEX webhook_registrations_kind_idx ON webhook_registrations (kind, created_at);

    -- Secrets are sealed with AES-256-GCM (see services/secret-box.ts); the fingerprint is a keyed
    -- hash, so neither column lets a reader of the database recover or test a secret.
    CREATE TABLE webhook_secrets (
      registration_id text NOT NULL REFERENCES webhook_registrations(id) ON DELETE CASCADE,
      fingerprint text NOT NULL,
      sealed text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      created_by text NOT NULL,
      PRIMARY KEY (registration_id, fingerprint)
    );

    CREATE TABLE service_settings (
      name text PRIMARY KEY,
      value text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    -- Every accepted delivery keeps its exact bytes: the alert holds the latest payload only.
    ALTER TABLE webhook_deliveries ADD COLUMN event text;
    ALTER TABLE webhook_deliveries ADD COLUMN raw_body text;
    CREATE INDEX webhook_deliveries_alert_idx ON webhook_deliveries (alert_id);

    CREATE INDEX alerts_due_idx ON alerts (client_id, due_at, id);
    CREATE INDEX cases_due_idx ON cases (client_id, due_at, id);
    -- The sweep also looks at closed cases: only a closing as str_filed ends the STR deadline.
    CREATE INDEX cases_str_sweep_idx ON cases (created_at) WHERE is_str AND NOT str_sweep_done;
  `,
  );
}
