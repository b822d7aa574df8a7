import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/** Alerts, cases with gap-free per-client yearly numbers, officers, webhook deliveries, KYC decisions. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE case_counters (
      client_id text NOT NULL,
      year integer NOT NULL,
      last_seq integer NOT NULL,
      PRIMARY KEY (client_id, year)
    );

    CREATE TABLE compliance_officers (
      client_id text NOT NULL REFERENCES clients(client_id),
      officer text NOT NULL,
      added_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (client_id, officer)
    );

    CREATE TABLE cases (
      id uuid PRIMARY KEY,
      client_id text NOT NULL REFERENCES clients(client_id),
      case_number text NOT NULL,
      status text NOT NULL CHECK (status IN ('open', 'investigating', 'pending_filing', 'closed')),
      resolution text,
      reason text NOT NULL,
      is_str boolean NOT NULL DEFAULT false,
      str_sweep_done boolean NOT NULL DEFAULT false,
      assignee text,
      rule_ids text[] NOT NULL DEFAULT '{}',
      evaluation_id uuid,
      due_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      history jsonb NOT NULL DEFAULT '[]'::jsonb
    );
    CREATE UNIQUE INDEX cases_number_idx ON cases (client_id, case_number);
    CREATE INDEX cases_status_idx ON cases (client_id, status, due_at);
    CREATE INDEX cases_assignee_idx ON cases (client_id, assignee) WHERE status <> 'closed';
    CREATE INDEX cases_str_idx ON cases (created_at) WHERE is_str AND NOT str_sweep_done AND status <> 'closed';

    CREATE TABLE alerts (
      id uuid PRIMARY KEY,
      client_id text NOT NULL REFERENCES clients(client_id),
      status text NOT NULL CHECK (status IN ('open', 'acknowledged', 'escalated', 'closed')),
      resolution text,
      severity text NOT NULL,
      source text NOT NULL,
      event text,
      vendor_object_id text,
      customer_id text,
      transaction_id text,
      evaluation_id uuid,
      case_id uuid REFERENCES cases(id),
      rule_ids text[] NOT NULL DEFAULT '{}',
      due_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      payload jsonb,
      headers jsonb,
      history jsonb NOT NULL DEFAULT '[]'::jsonb
    );
    CREATE UNIQUE INDEX alerts_vendor_object_idx ON alerts (client_id, source, vendor_object_id)
      WHERE vendor_object_id IS NOT NULL;
    CREATE INDEX alerts_status_idx ON alerts (client_id, status, due_at);
    CREATE INDEX alerts_case_idx ON alerts (case_id) WHERE case_id IS NOT NULL;

    CREATE TABLE webhook_deliveries (
      client_id text NOT NULL,
      vendor text NOT NULL,
      delivery_id text NOT NULL,
      alert_id uuid NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (client_id, vendor, delivery_id)
    );

    CREATE TABLE kyc_decisions (
      client_id text NOT NULL,
      customer_id text NOT NULL,
      decision text NOT NULL,
      alert_id uuid NOT NULL,
      decided_at timestamptz NOT NULL,
      PRIMARY KEY (client_id, customer_id)
    );
  `,
  );
}
