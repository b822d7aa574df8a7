// The IVMS101 form of the travel-rule request (CONTRACT §7): `{transfer_id, direction,
// amount_eur, amount_crypto?, blockchain?, ownership_verified?, ivms101: {originator, beneficiary,
// originatingVASP?, beneficiaryVASP?, transferPath?, payloadMetadata?}}` validated against
// IVMS101.2023 and mapped onto the same TravelRuleTransfer as the plain JSON form.
import {
  checkOriginatorIdentification,
  type IvmsAddress,
  type IvmsNationalId,
  type IvmsPartySummary,
  readAccountNumbers,
  readAddress,
  readLegalPerson,
  readNationalId,
  readNaturalPerson,
  readPerson,
} from './ivms101-person.ts';
import { type IvmsOptions, IvmsReader, PAYLOAD_VERSIONS, TRANSLITERATION_METHODS } from './ivms101-read.ts';
import { isRecord, type TransferValidation, validateTransfer } from './transfer.ts';

export type { IvmsAddress, IvmsNationalId, IvmsOptions, IvmsPartySummary };

export type IvmsResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

export interface IvmsParseOptions extends IvmsOptions {
  /** Dotted path of the element, used as the prefix of error fields. */
  path?: string;
}

export interface IvmsParty {
  persons: IvmsPartySummary[];
  /** Originator/Beneficiary-level accountNumber (IVMS101 2020 placement). */
  accountNumbers: string[];
}

export interface IvmsIdentity {
  originator: IvmsParty;
  beneficiary: IvmsParty;
  originatingVASP?: IvmsPartySummary;
  beneficiaryVASP?: IvmsPartySummary;
}

type Obj = Record<string, unknown>;

function run<T>(
  input: unknown,
  options: IvmsParseOptions,
  fallback: string,
  read: (r: IvmsReader, o: Obj, path: string) => T | undefined,
): IvmsResult<T> {
  const { path = fallback, ...rest } = options;
  const r = new IvmsReader(rest);
  if (!isRecord(input)) return { ok: false, errors: [`${path}: Must be an object`] };
  const value = read(r, input, path);
  return r.errors.length > 0 || value === undefined ? { ok: false, errors: r.errors } : { ok: true, value };
}

function readParty(r: IvmsReader, parent: Obj, key: string, personsKey: string, path: string): IvmsParty {
  const party = r.object(parent, key, path, true);
  if (!party) return { persons: [], accountNumbers: [] };
  const at = `${path}.${key}`;
  const persons: IvmsPartySummary[] = [];
  for (const [p, pAt] of r.objects(r.array(party, personsKey, at, 1), `${at}.${personsKey}`)) {
    const person = readPerson(r, p, pAt);
    if (person) persons.push(person);
    if (person && key === 'originator' && r.options.requireOriginatorIdentification)
      checkOriginatorIdentification(r, person, pAt);
  }
  return { persons, accountNumbers: readAccountNumbers(r, party, at) };
}

function readVasp(r: IvmsReader, parent: Obj, key: string, path: string): IvmsPartySummary | undefined {
  const wrapper = r.object(parent, key, path, false);
  if (!wrapper) return undefined;
  const inner = r.object(wrapper, key, `${path}.${key}`, false);
  return inner ? readPerson(r, inner, `${path}.${key}.${key}`) : undefined;
}

// C12: intermediaries numbered 0, 1, 2 … without gaps or repeats.
function readTransferPath(r: IvmsReader, payload: Obj, path: string): void {
  const wrapper = r.object(payload, 'transferPath', path, false);
  if (!wrapper) return;
  const at = `${path}.transferPath.transferPath`;
  const sequences: number[] = [];
  for (const [hop, hopAt] of r.objects(r.array(wrapper, 'transferPath', `${path}.transferPath`, 0), at)) {
    const vasp = r.object(hop, 'intermediaryVASP', hopAt, true);
    if (vasp) readPerson(r, vasp, `${hopAt}.intermediaryVASP`);
    const sequence = r.integer(hop, 'sequence', hopAt);
    if (sequence !== undefined) sequences.push(sequence);
  }
  const sorted = [...sequences].sort((a, b) => a - b);
  if (sorted.some((s, i) => s !== i))
    r.fail(at, 'sequence values must run 0, 1, 2 … without gaps or repeats (C12)');
}

function readPayloadMetadata(r: IvmsReader, payload: Obj, path: string): void {
  const meta = r.object(payload, 'payloadMetadata', path, false);
  if (!meta) return;
  const at = `${path}.payloadMetadata`;
  r.array(meta, 'transliterationMethod', at, 0).forEach((code, i) => {
    if (!(TRANSLITERATION_METHODS as readonly unknown[]).includes(code))
      r.fail(`${at}.transliterationMethod[${i}]`, `Must be one of: ${TRANSLITERATION_METHODS.join(', ')}`);
  });
  // payloadVersion is [1..1] in 2023 but absent from 2020 payloads, which are still sent.
  r.code(meta, 'payloadVersion', at, PAYLOAD_VERSIONS, false);
}

function readIdentity(r: IvmsReader, payload: Obj, path: string): IvmsIdentity {
  const originator = readParty(r, payload, 'originator', 'originatorPersons', path);
  const beneficiary = readParty(r, payload, 'beneficiary', 'beneficiaryPersons', path);
  const originatingVASP = readVasp(r, payload, 'originatingVASP', path);
  const beneficiaryVASP = readVasp(r, payload, 'beneficiaryVASP', path);
  readTransferPath(r, payload, path);
  readPayloadMetadata(r, payload, path);
  return { originator, beneficiary, originatingVASP, beneficiaryVASP };
}

/** Validates one IVMS101 Address and renders it on one line. */
export function parseIvmsAddress(input: unknown, options: IvmsParseOptions = {}): IvmsResult<IvmsAddress> {
  return run(input, options, 'geographicAddress', readAddress);
}

/** Validates one IVMS101 NationalIdentification (`legalPerson` adds C7, C9, C11). */
export function parseIvmsNationalIdentification(
  input: unknown,
  options: IvmsParseOptions & { legalPerson?: boolean } = {},
): IvmsResult<IvmsNationalId> {
  const { legalPerson = false, ...rest } = options;
  return run(input, rest, 'nationalIdentification', (r, o, p) => readNationalId(r, o, p, legalPerson));
}

/** Validates one IVMS101 NaturalPerson and summarises it. */
export function parseIvmsNaturalPerson(
  input: unknown,
  options: IvmsParseOptions = {},
): IvmsResult<IvmsPartySummary> {
  return run(input, options, 'naturalPerson', readNaturalPerson);
}

/** Validates one IVMS101 LegalPerson and summarises it. */
export function parseIvmsLegalPerson(
  input: unknown,
  options: IvmsParseOptions = {},
): IvmsResult<IvmsPartySummary> {
  return run(input, options, 'legalPerson', readLegalPerson);
}

/** Validates one IVMS101 Person (exactly one of naturalPerson / legalPerson) and summarises it. */
export function parseIvmsPerson(
  input: unknown,
  options: IvmsParseOptions = {},
): IvmsResult<IvmsPartySummary> {
  return run(input, options, 'person', readPerson);
}

/** Validates an IVMS101 IdentityPayload (originator, beneficiary, VASPs, transfer path, metadata). */
export function parseIvmsIdentityPayload(
  input: unknown,
  options: IvmsParseOptions = {},
): IvmsResult<IvmsIdentity> {
  return run(input, options, 'ivms101', readIdentity);
}

// The account: the party-level accountNumber (2020), else the first person's (2023).
function account(party: IvmsParty, base: string, personsKey: string): { value?: string; path: string } {
  const first = party.accountNumbers[0];
  if (first !== undefined) return { value: first, path: `${base}.accountNumber[0]` };
  const person = party.persons[0];
  return { value: person?.accountNumbers[0], path: `${base}.${personsKey}[0].accountNumber[0]` };
}

function personPath(base: string, person: IvmsPartySummary | undefined): string {
  return `${base}.${person?.kind === 'legal' ? 'legalPerson' : 'naturalPerson'}`;
}

/** Validates an IVMS101-form travel-rule request and maps it onto the normalised TravelRuleTransfer. */
export function mapIvms101Transfer(input: unknown, options: IvmsOptions = {}): TransferValidation {
  if (!isRecord(input)) return { ok: false, errors: ['body: Must be an object'] };
  const r = new IvmsReader(options);
  const payload = r.object(input, 'ivms101', '', true);
  const identity = payload ? readIdentity(r, payload, 'ivms101') : undefined;

  // Joint parties are reduced to their first person: the transfer model holds one of each.
  const o = identity?.originator.persons[0];
  const b = identity?.beneficiary.persons[0];
  const vasp = identity?.beneficiaryVASP;
  const oAccount = identity
    ? account(identity.originator, 'ivms101.originator', 'originatorPersons')
    : { path: '' };
  const bAccount = identity
    ? account(identity.beneficiary, 'ivms101.beneficiary', 'beneficiaryPersons')
    : { path: '' };
  const lei =
    vasp?.nationalId?.nationalIdentifierType === 'LEIX' ? vasp.nationalId.nationalIdentifier : undefined;
  const paths: Record<string, string> = {
    'originator.wallet_address': oAccount.path,
    'originator.date_of_birth': `${personPath('ivms101.originator.originatorPersons[0]', o)}.dateAndPlaceOfBirth.dateOfBirth`,
    'beneficiary.wallet_address': bAccount.path,
    'beneficiary.casp_lei': `${personPath('ivms101.beneficiaryVASP.beneficiaryVASP', vasp)}.nationalIdentification.nationalIdentifier`,
  };
  const plain = {
    transfer_id: input.transfer_id,
    direction: input.direction,
    amount_eur: input.amount_eur,
    amount_crypto: input.amount_crypto,
    blockchain: input.blockchain,
    ownership_verified: input.ownership_verified,
    originator: {
      name: o?.name,
      wallet_address: oAccount.value,
      geographic_address: o?.addresses[0]?.oneLine,
      national_id: o?.nationalId?.nationalIdentifier,
      date_of_birth: o?.dateOfBirth,
    },
    beneficiary: { name: b?.name, wallet_address: bAccount.value, casp_name: vasp?.name, casp_lei: lei },
  };
  // The plain validator checks the header and the values (address per chain, LEI check digits);
  // its errors are renamed to the IVMS101 element the value came from.
  const checked = validateTransfer(plain, { fieldPath: (field) => paths[field] ?? field });
  const errors = [...(checked.ok ? [] : checked.errors), ...r.errors];
  return errors.length > 0 || !checked.ok ? { ok: false, errors } : checked;
}
