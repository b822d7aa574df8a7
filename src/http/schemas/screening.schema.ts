import { Type } from 'typebox';
import { Enum, NonNegative } from './common.schema.ts';
import { CHAIN_NAMES, RuleResultSchema } from './evaluate.schema.ts';

const walletFields = {
  wallet_address: Type.String({ minLength: 1, maxLength: 256, description: 'validated for its blockchain' }),
  blockchain: Enum(CHAIN_NAMES),
};

/** GET /api/mica/wallet-screening query. */
export const ScreeningQuerySchema = Type.Object(walletFields);

/**
 * POST /api/mica/wallet-screening body. Other fields (a `client_id`, say: the client is always the
 * key's) are ignored, as in the GET form's query, rather than refused.
 */
export const ScreeningBodySchema = Type.Object(
  {
    ...walletFields,
    transaction_amount_eur: Type.Optional(NonNegative('amount in EUR')),
    originator_name: Type.Optional(
      Type.String({ maxLength: 512, description: 'screened against the lists' }),
    ),
    beneficiary_name: Type.Optional(
      Type.String({ maxLength: 512, description: 'screened against the lists' }),
    ),
    self_hosted_wallet: Type.Optional(
      Type.Boolean({ description: 'extension: the wallet is self-hosted (MICA-WAL-004)' }),
    ),
    ownership_verified: Type.Optional(
      Type.Boolean({ description: "extension: the customer's ownership of it is proven (MICA-WAL-004)" }),
    ),
  },
  { additionalProperties: true },
);

const SanctionsMatchSchema = Type.Object({
  list: Enum(['ofac', 'eu', 'un']),
  entry_id: Type.String(),
  name: Type.String(),
  programs: Type.Array(Type.String()),
  matched: Enum(['address', 'name']),
  score: Type.Number({ minimum: 0, maximum: 1 }),
});

export const ScreeningResponseSchema = Type.Object(
  {
    risk_profile: Type.Object({
      wallet_address: Type.String(),
      blockchain: Enum(CHAIN_NAMES),
      risk_score: Type.Number({ minimum: 0, maximum: 100 }),
      risk_category: Enum(['low', 'medium', 'high', 'critical']),
      sanctioned_exposure: Type.Number({ minimum: 0, maximum: 1 }),
      darknet_exposure: Type.Number({ minimum: 0, maximum: 1 }),
      mixer_exposure: Type.Number({ minimum: 0, maximum: 1 }),
      last_activity_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      sanctions_matches: Type.Array(SanctionsMatchSchema, { description: 'extension (CONTRACT §7)' }),
    }),
    rule_evaluation: Type.Object({
      rules_triggered: Type.Integer(),
      should_alert: Type.Boolean(),
      should_block: Type.Boolean(),
      actions: Type.Array(Enum(['BLOCK', 'REVIEW', 'REQUEST_INFO', 'ALLOW'])),
      triggered_rules: Type.Array(RuleResultSchema),
    }),
  },
  { title: 'WalletScreeningResponse' },
);

const BreakerSchema = Type.Object({
  state: Type.Union([Type.Literal('CLOSED'), Type.Literal('OPEN'), Type.Literal('HALF_OPEN')]),
  failures: Type.Integer(),
  successes: Type.Integer(),
  last_failure: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const BreakerStatusSchema = Type.Object(
  {
    breakers: Type.Object({ vendor_a: BreakerSchema, vendor_b: BreakerSchema, vendor_c: BreakerSchema }),
  },
  { title: 'CircuitBreakerStatus' },
);
