import { type Static, type TSchema, Type } from 'typebox';
import { COUNTRY_FORMAT } from '../../domain/country-codes.ts';
import { DATE_OR_TIME_FORMAT } from '../../domain/rules/facts.ts';
import { Enum, NonNegative } from './common.schema.ts';

export const TRIGGER_TYPES = ['transaction', 'wallet_screen', 'travel_rule', 'periodic', 'manual'] as const;
export const ENTITY_TYPES = ['transaction', 'wallet', 'transfer', 'customer', 'governance'] as const;
export const CHAIN_NAMES = ['ethereum', 'bitcoin', 'polygon', 'binance-smart-chain', 'solana'] as const;

const Country = Type.String({
  format: COUNTRY_FORMAT,
  description: 'ISO 3166-1 alpha-2 country code, any case (XK for Kosovo accepted)',
});
const Id = Type.String({ minLength: 1, maxLength: 256 });
const DateOrTime = Type.String({
  format: DATE_OR_TIME_FORMAT,
  description: 'ISO 8601 date (a day of the client’s calendar) or date-time with its zone',
});

const transactionFields = {
  customer_verified: Type.Boolean(),
  customer_id: Id,
  customer_country: Country,
  amount_eur: NonNegative('amount in EUR'),
  amount_crypto: NonNegative(),
  transaction_type: Enum(['send', 'receive', 'trade']),
  full_cdd_complete: Type.Boolean(),
  cdd_completion_date: DateOrTime,
  self_hosted_wallet: Type.Boolean(),
  ownership_verified: Type.Boolean(),
  wallet_address: Type.String({ maxLength: 256 }),
  address_validation_status: Enum(['passed', 'failed', 'pending']),
  multiple_identities_detected: Type.Boolean(),
  suspicious_activity_detected: Type.Boolean(),
};

const walletFields = {
  wallet_address: Type.String({
    minLength: 1,
    maxLength: 256,
    description: 'validated for `blockchain` as on the wallet-screening endpoint (400 when invalid)',
  }),
  blockchain: Enum(CHAIN_NAMES),
  wallet_risk_score: Type.Number({ minimum: 0, maximum: 100 }),
  wallet_risk_level: Enum(['low', 'medium', 'high', 'critical']),
  associated_exchanges: Type.Array(Type.String({ maxLength: 256 }), { maxItems: 1000 }),
  associated_sanctions: Type.Boolean(),
  associated_darknet: Type.Boolean(),
  transaction_history_length: NonNegative('days'),
  transaction_frequency: NonNegative('transactions per day'),
  self_hosted_wallet: Type.Boolean(),
  ownership_verified: Type.Boolean(),
  name_match_score: Type.Number({ minimum: 0, maximum: 1, description: 'extension (MICA-WAL-005)' }),
};

const travelFields = {
  transfer_id: Id,
  direction: Enum(['outbound', 'inbound']),
  amount_eur: NonNegative(),
  amount_crypto: NonNegative(),
  originator_name: Type.String({ maxLength: 512 }),
  originator_customer_id: Type.String({ maxLength: 256 }),
  originator_country: Country,
  originator_wallet_address: Type.String({ maxLength: 256 }),
  beneficiary_name: Type.String({ maxLength: 512 }),
  beneficiary_customer_id: Type.String({ maxLength: 256 }),
  beneficiary_country: Country,
  beneficiary_wallet_address: Type.String({ maxLength: 256 }),
  transfer_type: Enum(['internal', 'external']),
  data_completeness: Enum(['complete', 'partial', 'missing']),
  self_hosted_wallet: Type.Boolean(),
  ownership_verified: Type.Boolean(),
};

const periodicFields = {
  compliance_officer_board_access_documented: Type.Boolean(),
  third_party_oversight_active: Type.Boolean(),
  days_since_last_review: NonNegative(),
  days_since_last_training: NonNegative(),
  customer_id: Id,
  days_since_last_cdd_review: NonNegative(),
  risk_profile_changed: Type.Boolean(),
  str_detected_at: DateOrTime,
  str_filed: Type.Boolean(),
};

const TRAVEL_REQUIRED = [
  'transfer_id',
  'direction',
  'amount_eur',
  'amount_crypto',
  'transfer_type',
  'data_completeness',
  'self_hosted_wallet',
] as const;

// A field of `data` that its context does not name is refused (400 `data.<field>: Unknown field`):
// the rules read only the named fields, so a misspelt one (`amount` for `amount_eur`, `suspicious`)
// would otherwise pass as absent, and an absent fact cannot trigger its rule.
const closed = { additionalProperties: false };
// Type.Partial keeps the properties, not the object's options: the options go on the result.
export const TransactionData = Type.Partial(Type.Object(transactionFields), closed);
export const WalletData = Type.Object(
  {
    ...Type.Partial(Type.Object(walletFields)).properties,
    wallet_address: walletFields.wallet_address,
    blockchain: walletFields.blockchain,
  },
  closed,
);
export const TravelRuleData = Type.Object(
  Object.fromEntries(
    Object.entries(travelFields).map(([k, v]) => [
      k,
      (TRAVEL_REQUIRED as readonly string[]).includes(k) ? v : Type.Optional(v),
    ]),
  ) as Record<string, TSchema>,
  closed,
);
export const PeriodicData = Type.Partial(Type.Object(periodicFields), closed);
export const ManualData = Type.Partial(
  Type.Object({
    ...transactionFields,
    ...walletFields,
    ...travelFields,
    ...periodicFields,
    rule_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 100 }),
  }),
  closed,
);

const DATA_BY_TRIGGER: Record<(typeof TRIGGER_TYPES)[number], TSchema> = {
  transaction: TransactionData,
  wallet_screen: WalletData,
  travel_rule: TravelRuleData,
  periodic: PeriodicData,
  manual: ManualData,
};

const requestFields = {
  client_id: Type.String({ minLength: 1, maxLength: 128 }),
  trigger_type: Enum(TRIGGER_TYPES),
  trigger_entity_type: Type.Optional(
    Enum(ENTITY_TYPES, 'fixed per context: see the allOf branch of the trigger_type (manual takes any)'),
  ),
  trigger_entity_id: Type.Optional(Id),
  data: Type.Object({}, { additionalProperties: true }),
};

const ifTrigger = (t: (typeof TRIGGER_TYPES)[number]) => ({
  properties: { trigger_type: { const: t } },
  required: ['trigger_type'],
});

/** The evaluation request; `data` is checked against its context's schema by the if/then below. */
export const EvaluationRequestSchema = Type.Object(requestFields, {
  additionalProperties: false,
  allOf: TRIGGER_TYPES.map((t) => ({
    if: ifTrigger(t),
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
    then: { properties: { data: DATA_BY_TRIGGER[t] } },
  })),
});

/**
 * The entity types each context takes; another is refused with 400 `trigger_entity_type: Must be
 * one of: … (for trigger_type …)` by evaluationRequestProblems (evaluation.service.ts), which a
 * test keeps in step with this table. A manual evaluation takes any.
 */
export const ENTITY_TYPES_BY_TRIGGER: Record<(typeof TRIGGER_TYPES)[number], readonly string[]> = {
  transaction: ['transaction'],
  wallet_screen: ['wallet'],
  travel_rule: ['transfer'],
  periodic: ['governance', 'customer'],
  manual: ENTITY_TYPES,
};

/**
 * The evaluation request as the OpenAPI document states it: the request schema, with each
 * context's entity types in its branch. Documentation only: the route validates with
 * EvaluationRequestSchema, and the service refuses a mismatched entity type with its own message.
 */
export const EvaluationRequestDocument = Type.Object(requestFields, {
  additionalProperties: false,
  allOf: TRIGGER_TYPES.map((t) => ({
    if: ifTrigger(t),
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
    then: {
      properties: {
        trigger_entity_type: Enum(ENTITY_TYPES_BY_TRIGGER[t] as readonly string[]),
        data: DATA_BY_TRIGGER[t],
      },
    },
  })),
});
export type EvaluationRequestBody = Static<typeof EvaluationRequestSchema>;

const Severity = Enum(['low', 'medium', 'high', 'critical']);

export const RuleResultSchema = Type.Object(
  {
    rule_id: Type.String(),
    rule_name: Type.String(),
    triggered: Type.Boolean(),
    result: Enum(['pass', 'fail', 'alert', 'block']),
    conditions_met: Type.Record(Type.String(), Type.Boolean()),
    actions_to_execute: Type.Array(Type.String()),
    severity: Severity,
  },
  { title: 'RuleResult' },
);

export const EvaluationResponseSchema = Type.Object(
  {
    rules_evaluated: Type.Integer(),
    rules_triggered: Type.Integer(),
    evaluation_id: Type.String({ format: 'uuid' }),
    timestamp: Type.String({ format: 'date-time' }),
    results: Type.Array(RuleResultSchema),
    highest_severity: Type.Union([Severity, Type.Null()]),
    actions_required: Type.Array(Type.String()),
    should_block: Type.Boolean(),
    should_alert: Type.Boolean(),
    should_create_case: Type.Boolean(),
  },
  { title: 'EvaluationResponse' },
);
