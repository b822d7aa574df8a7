import { type TSchema, Type } from 'typebox';
import { ISO_COUNTRY_CODES } from '../../domain/country-codes.ts';
import { ADDRESS_TEXT } from '../../domain/travel-rule/ivms101-person.ts';
import {
  ADDRESS_TYPES,
  LEGAL_NAME_TYPES,
  LEGAL_PERSON_ID_TYPES,
  MAX_REPEATED,
  NATIONAL_ID_TYPES,
  NATURAL_NAME_TYPES,
  PAYLOAD_VERSIONS,
  TRANSLITERATION_METHODS,
} from '../../domain/travel-rule/ivms101-read.ts';
import { LEI_FORMAT } from '../../domain/travel-rule/lei.ts';
import { BLANK_TEXT, VISIBLE_TEXT } from './common.schema.ts';

// The IVMS101 identity payload of the travel-rule request, as the travel-rule domain reads it
// (domain/travel-rule/ivms101*.ts): for the OpenAPI document only, the route validates nothing
// itself. Each schema accepts exactly what the reader accepts, but for what JSON Schema cannot
// say (stated in descriptions): a date of birth in the past (C2), transfer-path sequences 0, 1, 2
// … (C12), the account numbers as wallet addresses of the transfer's chain, the beneficiary VASP's
// LEI check digits, and the originator's first address within 1024 characters on one line (the
// plain form's bound). Blank strings and null count as absent, as the reader takes them.

type Options = Record<string, unknown>;
const open = (description?: string, more: Options = {}): Options => ({
  additionalProperties: true,
  ...(description ? { description } : {}),
  ...more,
});

/** What the reader takes as absent: null, or a string with no visible character. */
export const Blank = Type.Union([Type.Null(), Type.String({ pattern: BLANK_TEXT })], {
  description:
    'counts as absent: null, or no visible character (white space, zero-width or format characters only)',
});
const NotBlank = Type.String({ pattern: VISIBLE_TEXT });

/** An optional element: absent, null or blank, or the schema's value. */
const orAbsent = (schema: TSchema, description?: string) =>
  Type.Optional(Type.Union([schema, Blank], description ? { description } : {}));
/** An optional object or array: absent or null (a blank string is not one). */
const orNull = (schema: TSchema, description?: string) =>
  Type.Optional(Type.Union([schema, Type.Null()], description ? { description } : {}));

/** MaxNText: printable ASCII (the standard's `[ -~]`), not blank. */
const Text = (max: number, description?: string) =>
  Type.String({ maxLength: max, pattern: '^ *[!-~][ -~]*$', ...(description ? { description } : {}) });
/** LocalMaxNText: any script, not blank. */
const LocalText = (max: number) => Type.String({ maxLength: max, pattern: VISIBLE_TEXT });
const Code = (codes: readonly string[]) => Type.Enum([...codes]);
const Country = Type.Enum([...ISO_COUNTRY_CODES, 'XX'], {
  description: 'ISO 3166-1 alpha-2 country code, upper case, or XX (C3)',
});
const Repeated = (items: TSchema, min: 0 | 1, max = MAX_REPEATED, more: Options = {}) =>
  Type.Array(items, { ...(min > 0 ? { minItems: min } : {}), maxItems: max, ...more });
const RegistrationAuthority = Type.String({
  pattern: '^RA[0-9]{6}$',
  description: 'a GLEIF Registration Authority code (C10: format only)',
});
const AccountNumbers = orNull(
  Repeated(Text(512), 0),
  'wallet addresses; the first is the party’s (the party-level list first, else its first person’s), validated for the transfer’s blockchain (given or inferred)',
);

// postCode, else (2023's structure table spelling) postcode; customerIdentification, else
// (2020, TRISA) customerNumber: the second is read only when the first is absent or blank.
const secondSpelling = (first: string, second: string, schema: TSchema) => ({
  if: { properties: { [first]: Blank } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
  then: { properties: { [second]: Type.Union([schema, Blank]) } },
});

// The text elements of an Address and their bounds, as readAddress reads them; townName, [1..1],
// is added below.
const ADDRESS_TEXT_OPTIONAL = ADDRESS_TEXT.filter(([name]) => name !== 'townName');

/** Address (C3, C8; townName [1..1]). */
export const IvmsAddress = Type.Object(
  {
    addressType: Code(ADDRESS_TYPES),
    ...Object.fromEntries(ADDRESS_TEXT_OPTIONAL.map(([key, max]) => [key, orAbsent(Text(max))])),
    townName: Text(35),
    addressLine: orNull(Repeated(Text(70), 0, 7)),
    country: Country,
  },
  open('C8: addressLine, or streetName with buildingName and/or buildingNumber', {
    title: 'Ivms101Address',
    allOf: [
      secondSpelling('postCode', 'postcode', Text(16)),
      {
        anyOf: [
          { required: ['addressLine'], properties: { addressLine: { type: 'array', minItems: 1 } } },
          {
            required: ['streetName'],
            properties: { streetName: NotBlank },
            anyOf: [
              { required: ['buildingName'], properties: { buildingName: NotBlank } },
              { required: ['buildingNumber'], properties: { buildingNumber: NotBlank } },
            ],
          },
        ],
      },
    ],
  }),
);

const nationalIdFields = {
  nationalIdentifier: Text(35),
  nationalIdentifierType: Code(NATIONAL_ID_TYPES),
  countryOfIssue: orAbsent(Country),
  registrationAuthority: orAbsent(RegistrationAuthority),
};

const NaturalNationalId = Type.Object(nationalIdFields, open());

/** A legal person's NationalIdentification: C7, C9, C11. */
const LegalNationalId = Type.Object(
  {
    ...nationalIdFields,
    nationalIdentifierType: Code(LEGAL_PERSON_ID_TYPES),
    countryOfIssue: Type.Optional(
      Type.Union([Type.Null(), Type.String({ pattern: BLANK_TEXT })], {
        description: 'absent for a legal person (C9)',
      }),
    ),
  },
  open(
    'C9: registrationAuthority absent for LEIX, required otherwise; C11: a LEIX identifier is an LEI (the beneficiary VASP’s is checked for its MOD 97-10 check digits too)',
    {
      allOf: [
        {
          if: {
            properties: { nationalIdentifierType: { const: 'LEIX' } },
            required: ['nationalIdentifierType'],
          },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
          then: {
            properties: {
              registrationAuthority: Blank,
              nationalIdentifier: { type: 'string', pattern: LEI_FORMAT.source },
            },
          },
          else: {
            required: ['registrationAuthority'],
            properties: { registrationAuthority: RegistrationAuthority },
          },
        },
      ],
    },
  ),
);

/** A name list: at least one identifier, one of them of type LEGL (C5, C6). */
const NameIdentifiers = (item: TSchema, typeKey: string, rule: string) =>
  Repeated(item, 1, MAX_REPEATED, {
    contains: { required: [typeKey], properties: { [typeKey]: { const: 'LEGL' } } },
    description: `at least one of type LEGL (${rule})`,
  });

const NaturalName = Type.Object(
  {
    nameIdentifier: NameIdentifiers(
      Type.Object(
        {
          primaryIdentifier: Text(100, 'surname'),
          secondaryIdentifier: orAbsent(Text(100, 'given names')),
          nameIdentifierType: Code(NATURAL_NAME_TYPES),
        },
        open(),
      ),
      'nameIdentifierType',
      'C6',
    ),
    ...Object.fromEntries(
      ['localNameIdentifier', 'phoneticNameIdentifier'].map((key) => [
        key,
        orNull(
          Repeated(
            Type.Object(
              {
                primaryIdentifier: LocalText(100),
                secondaryIdentifier: orAbsent(Type.String({ maxLength: 100 })),
                nameIdentifierType: Code(NATURAL_NAME_TYPES),
              },
              open(),
            ),
            0,
          ),
        ),
      ]),
    ),
  },
  open(),
);

const LegalName = Type.Object(
  {
    nameIdentifier: NameIdentifiers(
      Type.Object(
        { legalPersonName: Text(100), legalPersonNameIdentifierType: Code(LEGAL_NAME_TYPES) },
        open(),
      ),
      'legalPersonNameIdentifierType',
      'C5',
    ),
    ...Object.fromEntries(
      ['localNameIdentifier', 'phoneticNameIdentifier'].map((key) => [
        key,
        orNull(
          Repeated(
            Type.Object(
              { legalPersonName: LocalText(100), legalPersonNameIdentifierType: Code(LEGAL_NAME_TYPES) },
              open(),
            ),
            0,
          ),
        ),
      ]),
    ),
  },
  open(),
);

const Addresses = orNull(Repeated(IvmsAddress, 0));

/** A date YYYY-MM-DD naming a real day (years from 0100). */
const PastDate = Type.String({
  format: 'date',
  pattern: '^(?:0[1-9]|[1-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}$',
  description: 'YYYY-MM-DD, a real day before today (C2)',
});

export const IvmsNaturalPerson = Type.Object(
  {
    name: NaturalName,
    geographicAddress: Addresses,
    nationalIdentification: orNull(NaturalNationalId),
    customerIdentification: orAbsent(Text(50)),
    dateAndPlaceOfBirth: orNull(Type.Object({ dateOfBirth: PastDate, placeOfBirth: Text(70) }, open())),
    countryOfResidence: orAbsent(Country),
  },
  open(undefined, { title: 'Ivms101NaturalPerson' }),
);

export const IvmsLegalPerson = Type.Object(
  {
    name: LegalName,
    geographicAddress: Addresses,
    customerIdentification: orAbsent(Text(50)),
    nationalIdentification: orNull(LegalNationalId),
    countryOfRegistration: orAbsent(Country),
  },
  open(undefined, {
    title: 'Ivms101LegalPerson',
    allOf: [secondSpelling('customerIdentification', 'customerNumber', Text(50))],
  }),
);

/** Person: exactly one of naturalPerson or legalPerson (null counts as absent), and 2023's accountNumber. */
export const IvmsPerson = Type.Object(
  {
    naturalPerson: orNull(IvmsNaturalPerson),
    legalPerson: orNull(IvmsLegalPerson),
    accountNumber: AccountNumbers,
  },
  open('exactly one of naturalPerson or legalPerson', {
    title: 'Ivms101Person',
    anyOf: [
      {
        required: ['naturalPerson'],
        properties: { naturalPerson: { type: 'object' }, legalPerson: { type: 'null' } },
      },
      {
        required: ['legalPerson'],
        properties: { legalPerson: { type: 'object' }, naturalPerson: { type: 'null' } },
      },
    ],
  }),
);

const Party = (personsKey: string, description: string) =>
  Type.Object(
    {
      [personsKey]: Repeated(IvmsPerson, 1, MAX_REPEATED, {
        description: 'the first person is the one the transfer names',
      }),
      accountNumber: AccountNumbers,
    },
    open(description),
  );

const Vasp = (key: string, description: string) =>
  orNull(Type.Object({ [key]: orNull(IvmsPerson) }, open()), description);

/** The identity payload (`ivms101` of the request). */
export const IvmsIdentityPayload = Type.Object(
  {
    originator: Party(
      'originatorPersons',
      'the originator: its first person’s LEGL name, first geographicAddress (at most 1024 characters on one line), nationalIdentification and date of birth are the ones checked',
    ),
    beneficiary: Party('beneficiaryPersons', 'the beneficiary'),
    originatingVASP: Vasp('originatingVASP', 'the originating VASP'),
    beneficiaryVASP: Vasp(
      'beneficiaryVASP',
      'the beneficiary CASP: its LEGL name and a LEIX identification name the counterparty; a LEIX identifier must be a valid LEI, check digits included',
    ),
    transferPath: orNull(
      Type.Object(
        {
          transferPath: orNull(
            Repeated(
              Type.Object(
                {
                  intermediaryVASP: IvmsPerson,
                  sequence: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
                },
                open(),
              ),
              0,
              MAX_REPEATED,
              { description: 'sequence values run 0, 1, 2 … without gaps or repeats (C12)' },
            ),
          ),
        },
        open(),
      ),
    ),
    payloadMetadata: orNull(
      Type.Object(
        {
          transliterationMethod: orNull(Repeated(Code(TRANSLITERATION_METHODS), 0)),
          payloadVersion: orAbsent(Code(PAYLOAD_VERSIONS)),
        },
        open(),
      ),
    ),
  },
  open('IVMS101.2023 (2020 placements accepted), camelCase, as the standard’s JSON', {
    title: 'Ivms101Payload',
  }),
);
