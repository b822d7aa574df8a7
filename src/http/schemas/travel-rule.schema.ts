import { Type } from 'typebox';
import { Enum } from './common.schema.ts';
import { CHAIN_NAMES, RuleResultSchema } from './evaluate.schema.ts';

// These schemas document the API (OpenAPI); the body itself is checked by the travel-rule domain
// (parseTravelRuleRequest), whose `<field>: <reason>` errors name IVMS101 elements precisely.

const Text = (description?: string) => Type.String({ maxLength: 1024, description });

const Originator = Type.Object(
  {
    name: Type.Optional(Text('full name')),
    wallet_address: Type.Optional(
      Text('wallet address, validated for the transfer’s blockchain (given or inferred; 400 when invalid)'),
    ),
    geographic_address: Type.Optional(Text()),
    national_id: Type.Optional(Text()),
    date_of_birth: Type.Optional(Type.String({ format: 'date', description: 'extension' })),
    customer_id: Type.Optional(
      Type.String({ maxLength: 256, description: 'extension: the client’s own customer id' }),
    ),
  },
  { additionalProperties: true },
);

const Beneficiary = Type.Object(
  {
    name: Type.Optional(Text('full name')),
    wallet_address: Type.Optional(
      Text('wallet address, validated for the transfer’s blockchain (given or inferred; 400 when invalid)'),
    ),
    casp_name: Type.Optional(Text('name of the counterparty service provider')),
    casp_lei: Type.Optional(
      Type.String({ pattern: '^[0-9A-Z]{18}[0-9]{2}$', description: 'ISO 17442 LEI (mod 97-10 checked)' }),
    ),
    customer_id: Type.Optional(
      Type.String({
        maxLength: 256,
        description:
          'extension: set when the beneficiary is the client’s own customer (an internal transfer)',
      }),
    ),
  },
  { additionalProperties: true },
);

const Header = {
  transfer_id: Type.String({ minLength: 1, maxLength: 256 }),
  direction: Enum(['outbound', 'inbound']),
  amount_eur: Type.Number({ minimum: 0 }),
  amount_crypto: Type.Optional(Type.Number({ minimum: 0, description: 'extension' })),
  blockchain: Type.Optional(
    Enum(CHAIN_NAMES, 'extension: the chain of the addresses; inferred from their form when absent'),
  ),
  ownership_verified: Type.Optional(
    Type.Boolean({ description: 'extension: proof of ownership of a self-hosted beneficiary wallet' }),
  ),
};

/** The spec's request form. */
export const TravelRulePlainRequest = Type.Object(
  { ...Header, originator: Type.Optional(Originator), beneficiary: Type.Optional(Beneficiary) },
  { title: 'Travel-rule request', additionalProperties: true },
);

/** The IVMS101 form (CONTRACT §7): the standard's JSON, camelCase, code values such as LEGL. */
export const TravelRuleIvmsRequest = Type.Object(
  {
    ...Header,
    ivms101: Type.Object(
      {
        originator: Type.Object({}, { additionalProperties: true }),
        beneficiary: Type.Object({}, { additionalProperties: true }),
        originatingVASP: Type.Optional(Type.Object({}, { additionalProperties: true })),
        beneficiaryVASP: Type.Optional(
          Type.Object({}, { additionalProperties: true, description: 'the beneficiary CASP (LEIX id)' }),
        ),
      },
      { additionalProperties: true },
    ),
  },
  { title: 'Travel-rule request (IVMS101)', additionalProperties: true },
);

export const TravelRuleRequestSchema = Type.Union([TravelRulePlainRequest, TravelRuleIvmsRequest]);

export const TravelRuleResponseSchema = Type.Object({
  validation_result: Type.Object({
    transfer_id: Type.String(),
    data_completeness: Enum(['complete', 'partial', 'missing']),
    required_fields: Type.Array(Type.String(), { description: 'missing required fields, dotted paths' }),
    self_hosted: Type.Boolean(),
    counterparty_verified: Type.Boolean(),
  }),
  rule_evaluation: Type.Object({
    rules_triggered: Type.Integer(),
    should_alert: Type.Boolean(),
    should_block: Type.Boolean(),
    actions: Type.Array(Enum(['ALLOW', 'REVIEW', 'BLOCK', 'REQUEST_INFO'])),
    triggered_rules: Type.Array(RuleResultSchema),
  }),
});
