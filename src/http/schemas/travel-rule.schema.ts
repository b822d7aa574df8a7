import { type TSchema, Type } from 'typebox';
import { Enum, VISIBLE_TEXT } from './common.schema.ts';
import { CHAIN_NAMES, RuleResultSchema } from './evaluate.schema.ts';
import { Blank, IvmsIdentityPayload } from './ivms101.schema.ts';

// These schemas document the API (OpenAPI); the body itself is checked by the travel-rule domain
// (parseTravelRuleRequest), whose `<field>: <reason>` errors name IVMS101 elements precisely.

// Blank strings and null count as absent (CONTRACT §7): the schemas take them wherever the
// domain does, so the document refuses no request the service accepts.
const absent = <T extends TSchema>(schema: T, description?: string) =>
  Type.Optional(Type.Union([schema, Blank], description ? { description } : {}));
const Text = (description?: string) => absent(Type.String({ maxLength: 1024 }), description);
const WalletAddress = Text(
  'wallet address, validated for the transfer’s blockchain (given or inferred; 400 when invalid)',
);
const CustomerId = (description: string) => absent(Type.String({ maxLength: 256 }), description);

const Originator = Type.Object(
  {
    name: Text('full name'),
    wallet_address: WalletAddress,
    geographic_address: Text(),
    national_id: Text(),
    date_of_birth: absent(
      Type.String({ format: 'date', pattern: '^(?:0[1-9]|[1-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}$' }),
      'extension: YYYY-MM-DD, a real day before today',
    ),
    customer_id: CustomerId('extension: the client’s own customer id'),
  },
  { additionalProperties: true },
);

const Beneficiary = Type.Object(
  {
    name: Text('full name'),
    wallet_address: WalletAddress,
    casp_name: Text('name of the counterparty service provider'),
    casp_lei: absent(Type.String({ pattern: '^[0-9A-Z]{18}[0-9]{2}$' }), 'ISO 17442 LEI (mod 97-10 checked)'),
    customer_id: CustomerId(
      'extension: set when the beneficiary is the client’s own customer (an internal transfer)',
    ),
  },
  { additionalProperties: true },
);

const Header = {
  transfer_id: Type.String({ maxLength: 256, pattern: VISIBLE_TEXT, description: 'not blank' }),
  direction: Enum(['outbound', 'inbound']),
  amount_eur: Type.Number({ minimum: 0 }),
  amount_crypto: Type.Optional(
    Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
      description: 'extension; null counts as absent',
    }),
  ),
  blockchain: absent(
    Enum(CHAIN_NAMES),
    'extension: the chain of the addresses; inferred from their form when absent',
  ),
  ownership_verified: Type.Optional(
    Type.Union([Type.Boolean(), Type.Null()], {
      description: 'extension: proof of ownership of a self-hosted beneficiary wallet; null counts as absent',
    }),
  ),
};

/** The spec's request form. */
export const TravelRulePlainRequest = Type.Object(
  {
    ...Header,
    originator: absent(Originator, 'absent, null or blank: every originator field is missing'),
    beneficiary: absent(Beneficiary, 'absent, null or blank: every beneficiary field is missing'),
    ivms101: Type.Optional(
      Type.Null({ description: 'an `ivms101` that is not null makes the request the IVMS101 form' }),
    ),
  },
  { title: 'Travel-rule request', additionalProperties: true },
);

/** The IVMS101 form (CONTRACT §7): the standard's JSON, camelCase, code values such as LEGL. */
export const TravelRuleIvmsRequest = Type.Object(
  { ...Header, ivms101: IvmsIdentityPayload },
  {
    title: 'Travel-rule request (IVMS101)',
    description: 'top-level `originator` and `beneficiary` are not read in this form',
    additionalProperties: true,
  },
);

export const TravelRuleRequestSchema = Type.Union([TravelRulePlainRequest, TravelRuleIvmsRequest]);

export const TravelRuleResponseSchema = Type.Object(
  {
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
  },
  { title: 'TravelRuleResponse' },
);
