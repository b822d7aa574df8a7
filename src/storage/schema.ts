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

export interface ComplianceOfficersTable {
  client_id: string;
  officer: string;
  added_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** Open cases assigned to the officer, kept by triggers on cases (set on insert by a trigger too). */
  open_cases: ColumnType<number, never, never>;
}

export interface CasesTable {
  id: string;
  client_id: string;
  case_number: string;
  status: string;
  resolution: string | null;
  reason: string;
  is_str: boolean;
  str_sweep_done: boolean;
  str_sweep_claimed_at: Date | null;
  assignee: string | null;
  /** The officer the case was assigned to when opened (null: none), whoever holds it now. */
  opened_assignee: string | null;
  rule_ids: string[];
  evaluation_id: string | null;
  due_at: Date;
  created_at: Date;
  updated_at: Date;
  history: unknown;
}

export interface AlertsTable {
  id: string;
  client_id: string;
  status: string;
  resolution: string | null;
  severity: string;
  source: string;
  event: string | null;
  vendor_object_id: string | null;
  customer_id: string | null;
  transaction_id: string | null;
  evaluation_id: string | null;
  case_id: string | null;
  rule_ids: string[];
  due_at: Date;
  created_at: Date;
  updated_at: Date;
  payload: unknown;
  headers: unknown;
  history: unknown;
}

/** An alert a case held before it was escalated into another (migration 022). */
export interface CaseFormerAlertsTable {
  client_id: string;
  case_id: string;
  alert_id: string;
  left_at: Date | string;
}

export interface Database {
  cases: CasesTable;
  case_former_alerts: CaseFormerAlertsTable;
  alerts: AlertsTable;
  compliance_officers: ComplianceOfficersTable;
  clients: ClientsTable;
  api_keys: ApiKeysTable;
  operator_audit: OperatorAuditTable;
  evaluations: EvaluationsTable;
  customer_transactions: CustomerTransactionsTable;
  mica_rule_evaluations: MicaRuleEvaluationsView;
  sanctions_lists: SanctionsListsTable;
  sanctions_entries: SanctionsEntriesTable;
  sanctions_addresses: SanctionsAddressesTable;
  casp_directory: CaspDirectoryTable;
  casp_directory_imports: CaspDirectoryImportsTable;
  webhook_registrations: WebhookRegistrationsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  kyc_decisions: KycDecisionsTable;
  service_settings: ServiceSettingsTable;
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

/** One row per held sanctions list (migration 002); `version` grows with every import. */
export interface SanctionsListsTable {
  source: 'ofac' | 'eu' | 'un';
  version: number;
  published_at: string | null;
  imported_at: ColumnType<Date, Date | string | undefined, Date | string>;
  imported_by: string;
  entry_count: number;
  alias_count: number;
  address_count: number;
  screenable_address_count: number;
  files: ColumnType<string[], string, string>;
}

export interface SanctionsEntriesTable {
  source: string;
  entry_id: string;
  name: string;
  entry_type: string;
  programs: ColumnType<string[], string, string>;
  aliases: ColumnType<string[], string, string>;
}

export interface SanctionsAddressesTable {
  id: Generated<number>;
  source: string;
  entry_id: string;
  ticker: string;
  address: string;
  scope: string;
  match_key: string;
}

/** A vendor kind registered for a client (migration 005); its secrets live in webhook_secrets. */
export interface WebhookRegistrationsTable {
  id: string;
  client_id: string;
  kind: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  created_by: string;
}

/** One secret of a registration, sealed with AES-256-GCM; several during a rotation. */
export interface WebhookSecretsTable {
  registration_id: string;
  fingerprint: string;
  sealed: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  created_by: string;
}

/** One accepted delivery (migration 004, raw bytes and event from 005): the dedup key of intake. */
export interface WebhookDeliveriesTable {
  client_id: string;
  vendor: string;
  delivery_id: string;
  alert_id: string;
  received_at: ColumnType<Date, Date | string | undefined, Date | string>;
  event: string | null;
  raw_body: string | null;
}

/** The latest KYC decision per client and customer. */
export interface KycDecisionsTable {
  client_id: string;
  customer_id: string;
  decision: string;
  alert_id: string;
  decided_at: Timestamp;
}

/** Service-wide values the service generates once (e.g. the secret-encryption key on PostgreSQL). */
export interface ServiceSettingsTable {
  name: string;
  value: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}
