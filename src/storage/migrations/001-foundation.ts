import type { Kysely } from 'kysely';
import { ruleEvaluationsView } from './audit-views.ts';
import { runStatements } from './run-statements.ts';

/** Tenants, keys, the operator audit log, and the evaluation audit store with its per-rule view. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE clients (
      client_id text PRIMARY KEY,
      name text NOT NULL,
      settings jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE api_keys (
      key_id text PRIMARY KEY,
      client_id text NOT NULL REFERENCES clients(client_id),
      key_hash text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
      role text NOT NULL CHECK (role IN ('standard', 'admin')),
      officer text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      replaced_by text
    );
    CREATE UNIQUE INDEX api_keys_key_hash_idx ON api_keys (key_hash);
    CREATE INDEX api_keys_client_idx ON api_keys (client_id);

    CREATE TABLE operator_audit (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      at timestamptz NOT NULL DEFAULT now(),
      client_id text,
      actor text NOT NULL,
      action text NOT NULL,
      subject text,
      detail jsonb NOT NULL DEFAULT '{}'::jsonb
    );
    CREATE INDEX operator_audit_client_idx ON operator_audit (client_id, at);

    -- Evaluations are stored compactly: one row each, with the response that holds every rule result.
    -- Partitioned by month so that years of retention stay fast and expire by dropping partitions.
    -- Each row is a link of its client's hash chain (chain_seq, prev_hash, row_hash).
    CREATE TABLE evaluations (
      evaluation_id uuid NOT NULL,
      client_id text NOT NULL REFERENCES clients(client_id),
      trigger_type text NOT NULL,
      trigger_entity_type text,
      trigger_entity_id text,
      customer_id text,
      evaluated_at timestamptz NOT NULL,
      rule_set_version text NOT NULL,
      high_risk_list_date text,
      evaluator_id text NOT NULL,
      rules_evaluated integer NOT NULL,
      rules_triggered integer NOT NULL,
      transaction_blocked boolean NOT NULL,
      alert_generated boolean NOT NULL,
      case_created boolean NOT NULL,
      highest_severity text,
      rule_ids text[] NOT NULL,
      request json NOT NULL,
      response json NOT NULL,
      chain_seq bigint NOT NULL,
      prev_hash bytea NOT NULL,
      row_hash bytea NOT NULL,
      PRIMARY KEY (evaluation_id, evaluated_at)
    ) PARTITION BY RANGE (evaluated_at);
    -- Catches a row whose month has no partition yet, so nothing is ever refused for lack of one.
    CREATE TABLE evaluations_default PARTITION OF evaluations DEFAULT;
    CREATE INDEX evaluations_client_time_idx ON evaluations (client_id, evaluated_at DESC);
    CREATE INDEX evaluations_customer_idx ON evaluations (client_id, customer_id, evaluated_at DESC)
      WHERE customer_id IS NOT NULL;
    CREATE INDEX evaluations_entity_idx ON evaluations (client_id, trigger_entity_id, evaluated_at DESC)
      WHERE trigger_entity_id IS NOT NULL;
    -- A rule is evaluated only in its contexts (and manual), so filtering by rule narrows by trigger
    -- type first: a B-tree here is much cheaper to maintain than a GIN over rule_ids.
    CREATE INDEX evaluations_trigger_idx ON evaluations (client_id, trigger_type, evaluated_at DESC);
    CREATE INDEX evaluations_chain_idx ON evaluations (client_id, chain_seq);

    CREATE TABLE audit_chain_heads (
      client_id text PRIMARY KEY,
      seq bigint NOT NULL,
      head bytea NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE audit_checkpoints (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      client_id text NOT NULL,
      seq bigint NOT NULL,
      head bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX audit_checkpoints_client_idx ON audit_checkpoints (client_id, seq);
    -- Where a client's chain resumes after retention removed its oldest rows.
    CREATE TABLE audit_retention_marks (
      client_id text NOT NULL,
      seq bigint NOT NULL,
      hash bytea NOT NULL,
      removed_before timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (client_id, seq)
    );

    -- Audit rows are append-only for everyone, superusers included; only the retention job may
    -- delete, and it says so with a transaction-local setting.
    CREATE FUNCTION mica_refuse_audit_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'DELETE' AND current_setting('mica.maintenance', true) = 'retention' THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'audit rows are append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
    END
    $fn$;
    CREATE TRIGGER evaluations_append_only BEFORE UPDATE OR DELETE ON evaluations
      FOR EACH ROW EXECUTE FUNCTION mica_refuse_audit_change();
    CREATE TRIGGER evaluations_no_truncate BEFORE TRUNCATE ON evaluations
      FOR EACH STATEMENT EXECUTE FUNCTION mica_refuse_audit_change();
    CREATE TRIGGER evaluations_default_no_truncate BEFORE TRUNCATE ON evaluations_default
      FOR EACH STATEMENT EXECUTE FUNCTION mica_refuse_audit_change();
    CREATE TRIGGER checkpoints_append_only BEFORE UPDATE OR DELETE ON audit_checkpoints
      FOR EACH ROW EXECUTE FUNCTION mica_refuse_audit_change();
    CREATE TRIGGER operator_audit_append_only BEFORE UPDATE OR DELETE ON operator_audit
      FOR EACH ROW EXECUTE FUNCTION mica_refuse_audit_change();

    ${ruleEvaluationsView('CREATE')}

    CREATE TABLE customer_transactions (
      client_id text NOT NULL,
      transaction_id text NOT NULL,
      customer_id text NOT NULL,
      amount_eur double precision NOT NULL,
      evaluated_at timestamptz NOT NULL,
      blocked boolean NOT NULL,
      PRIMARY KEY (client_id, transaction_id)
    );
    CREATE INDEX customer_transactions_window_idx
      ON customer_transactions (client_id, customer_id, evaluated_at);
  `,
  );
}
