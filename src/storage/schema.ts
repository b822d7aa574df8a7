import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface ClientsTable {
  client_id: string;
  name: string;
  settings: ColumnType<Record<string, unknown>, string, string>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface ApiKeysTable {
  key_id: string;
  client_id: string;
  key_hash: string;
  environment: 'live' | 'sandbox';
  role: 'standard' | 'admin';
  officer: string | null;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  replaced_by: string | null;
}

export interface OperatorAuditTable {
  id: Generated<number>;
  at: ColumnType<Date, Date | string | undefined, Date | string>;
  client_id: string | null;
  actor: string;
  action: string;
  subject: string | null;
  detail: ColumnType<Record<string, unknown>, string, string>;
}

export interface EvaluationsTable {
  evaluation_id: string;
  client_id: string;
  trigger_type: string;
  trigger_entity_type: string | null;
  trigger_entity_id: string | null;
  customer_id: string | null;
  evaluated_at: Timestamp;
  rule_set_version: string;
  high_risk_list_date: string | null;
  evaluator_id: string;
  rules_evaluated: number;
  rules_triggered: number;
  transaction_blocked: boolean;
  alert_generated: boolean;
  case_created: boolean;
  highest_severity: string | null;
  rule_ids: string[];
  request: ColumnType<unknown, string, string>;
  response: ColumnType<unknown, string, string>;
}

export interface CustomerTransactionsTable {
  client_id: string;
  transaction_id: string;
  customer_id: string;
  amount_eur: number;
  evaluated_at: Timestamp;
  blocked: boolean;
}

/** The audit view: one row per evaluated rule, derived from the compact evaluations store. */
export interface MicaRuleEvaluationsView {
  client_id: string;
  evaluation_id: string;
  rule_id: string;
  rule_position: number;
  result: string;
  triggered: boolean;
  trigger_type: string;
  trigger_entity_type: string;
  trigger_entity_id: string | null;
  evaluated_at: Date;
  transaction_blocked: boolean;
  alert_generated: boolean;
  conditions_evaluated: string[];
  conditions_met: Record<string, boolean>;
  actions_executed: string[];
  severity: string;
  evaluator_id: string;
  customer_id: string | null;
  rule_set_version: string;
  high_risk_list_date: string | null;
}

export interface Database {
  clients: ClientsTable;
  api_keys: ApiKeysTable;
  operator_audit: OperatorAuditTable;
  evaluations: EvaluationsTable;
  customer_transactions: CustomerTransactionsTable;
  mica_rule_evaluations: MicaRuleEvaluationsView;
  casp_directory: CaspDirectoryTable;
  casp_directory_imports: CaspDirectoryImportsTable;
}

/** Authorised crypto-asset service providers, operator-wide (migration 003). */
export interface CaspDirectoryTable {
  lei: string;
  name: string;
  country: string;
  extra: ColumnType<Record<string, string>, string, string>;
}

/** One row per CASP directory import; the latest id is the directory's version. */
export interface CaspDirectoryImportsTable {
  id: Generated<number>;
  source: string;
  row_count: number;
  sha256: string;
  actor: string;
  imported_at: ColumnType<Date, Date | string | undefined, Date | string>;
}
