// IVMS101.2023 §5.2 components (Person, NaturalPerson, LegalPerson, names, Address,
// NationalIdentification, DateAndPlaceOfBirth): validation with constraints C2–C11, and the
// summary of a person that the travel-rule transfer needs.

import {
  ADDRESS_TYPES,
  type IvmsReader,
  LEGAL_NAME_TYPES,
  LEGAL_PERSON_ID_TYPES,
  NATIONAL_ID_TYPES,
  NATURAL_NAME_TYPES,
} from './ivms101-read.ts';
import { LEI_FORMAT } from './lei.ts';
import { isBlank } from './transfer.ts';

type Obj = Record<string, unknown>;

export interface IvmsAddress {
  addressType: string;
  /** The address on one line, for the transfer's `geographic_address`. */
  oneLine: string;
}

export interface IvmsNationalId {
  nationalIdentifier: string;
  nationalIdentifierType: string;
  countryOfIssue?: string;
  registrationAuthority?: string;
}

/** What the travel rule takes from one IVMS101 person. */
export interface IvmsPartySummary {
  kind: 'natural' | 'legal';
  /** The LEGL name: natural "secondary primary", legal legalPersonName. */
  name?: string;
  addresses: IvmsAddress[];
  nationalId?: IvmsNationalId;
  customerIdentification?: string;
  dateOfBirth?: string;
  /** IVMS101.2023 moved accountNumber into Person; the 2020 placement is on Originator/Beneficiary. */
  accountNumbers: string[];
}

// One-line order: premises, street, free lines, locality, region, post code, country. The
// standard prescribes no rendering; this one keeps every element and reads naturally in English.
const ONE_LINE_PARTS: ((a: Record<string, string | undefined>) => string | undefined)[] = [
  (a) => a.department,
  (a) => a.subDepartment,
  (a) => a.buildingName,
  (a) => (a.floor ? `Floor ${a.floor}` : undefined),
  (a) => (a.room ? `Room ${a.room}` : undefined),
  (a) => [a.buildingNumber, a.streetName].filter(Boolean).join(' ') || undefined,
  (a) => (a.postBox ? `PO Box ${a.postBox}` : undefined),
  (a) => a.addressLine,
  (a) => a.townLocationName,
  (a) => a.districtName,
  (a) => a.townName,
  (a) => a.countrySubDivision,
  (a) => a.postCode,
  (a) => a.country,
];

/** The text elements of an Address and their most characters (IVMS101 C3, C8). */
export const ADDRESS_TEXT: [string, number][] = [
  ['department', 50],
  ['subDepartment', 70],
  ['streetName', 70],
  ['buildingNumber', 16],
  ['buildingName', 35],
  ['floor', 70],
  ['postBox', 16],
  ['room', 70],
  ['postCode', 16],
  ['townName', 35],
  ['townLocationName', 35],
  ['districtName', 35],
  ['countrySubDivision', 35],
];

/** Validates an Address (C3, C8; townName [1..1]) and renders it on one line. */
export function readAddress(r: IvmsReader, a: Obj, path: string): IvmsAddress | undefined {
  const before = r.errors.length;
  const addressType = r.code(a, 'addressType', path, ADDRESS_TYPES, true);
  const f: Record<string, string | undefined> = {};
  for (const [key, max] of ADDRESS_TEXT) f[key] = r.text(a, key, path, max, key === 'townName');
  // The 2023 structure table spells it `postcode`, its element list `postCode`: accept either.
  if (f.postCode === undefined) f.postCode = r.text(a, 'postcode', path, 16, false);
  const lines = r.array(a, 'addressLine', path, 0, 7);
  const addressLines = lines
    .map((l, i) => r.textValue(l, `${path}.addressLine[${i}]`, 70, true))
    .filter((l): l is string => l !== undefined);
  f.country = r.country(a, 'country', path, true);
  f.addressLine = addressLines.length > 0 ? addressLines.join(', ') : undefined;
  // C8 looks at what was sent: a present but malformed element already has its own error.
  const linesSent = Array.isArray(a.addressLine) ? a.addressLine.length > 0 : !isBlank(a.addressLine);
  const streetSent = !isBlank(a.streetName) && (!isBlank(a.buildingName) || !isBlank(a.buildingNumber));
  if (!linesSent && !streetSent)
    r.fail(path, 'Must have addressLine, or streetName with buildingName and/or buildingNumber (C8)');
  if (r.errors.length > before || !addressType) return undefined;
  const oneLine = ONE_LINE_PARTS.map((part) => part(f))
    .filter((p): p is string => p !== undefined && p.trim() !== '')
    .join(', ');
  return { addressType, oneLine };
}

/** Validates a NationalIdentification; `legal` adds C7, C9 and C11. */
export function readNationalId(
  r: IvmsReader,
  n: Obj,
  path: string,
  legal: boolean,
): IvmsNationalId | undefined {
  const before = r.errors.length;
  const nationalIdentifier = r.text(n, 'nationalIdentifier', path, 35, true);
  const nationalIdentifierType = r.code(n, 'nationalIdentifierType', path, NATIONAL_ID_TYPES, true);
  const countryOfIssue = r.country(n, 'countryOfIssue', path, false);
  const registrationAuthority = r.registrationAuthority(n, 'registrationAuthority', path);
  if (legal && nationalIdentifierType) {
    if (!(LEGAL_PERSON_ID_TYPES as readonly string[]).includes(nationalIdentifierType))
      r.fail(
        `${path}.nationalIdentifierType`,
        `Must be one of: ${LEGAL_PERSON_ID_TYPES.join(', ')} for a legal person (C7)`,
      );
    if (!isBlank(n.countryOfIssue))
      r.fail(`${path}.countryOfIssue`, 'Must be absent for a legal person (C9)');
    const isLei = nationalIdentifierType === 'LEIX';
    if (isLei && registrationAuthority)
      r.fail(`${path}.registrationAuthority`, 'Must be absent for LEIX (C9)');
    if (!isLei && isBlank(n.registrationAuthority))
      r.fail(`${path}.registrationAuthority`, 'Required unless nationalIdentifierType is LEIX (C9)');
    if (isLei && nationalIdentifier && !LEI_FORMAT.test(nationalIdentifier))
      r.fail(
        `${path}.nationalIdentifier`,
        'Must be an LEI: 18 upper-case letters or digits and 2 digits (C11)',
      );
  }
  if (r.errors.length > before || !nationalIdentifier || !nationalIdentifierType) return undefined;
  return { nationalIdentifier, nationalIdentifierType, countryOfIssue, registrationAuthority };
}

function readAddresses(r: IvmsReader, p: Obj, path: string): IvmsAddress[] {
  const out: IvmsAddress[] = [];
  const items = r.array(p, 'geographicAddress', path, 0);
  for (const [a, at] of r.objects(items, `${path}.geographicAddress`)) {
    const address = readAddress(r, a, at);
    if (address) out.push(address);
  }
  return out;
}

// localNameIdentifier / phoneticNameIdentifier: any script, same shape, no LEGL constraint.
function readLocalNames(r: IvmsReader, name: Obj, path: string, legal: boolean): void {
  for (const key of ['localNameIdentifier', 'phoneticNameIdentifier']) {
    for (const [id, at] of r.objects(r.array(name, key, path, 0), `${path}.${key}`)) {
      if (legal) {
        r.text(id, 'legalPersonName', at, 100, true, true);
        r.code(id, 'legalPersonNameIdentifierType', at, LEGAL_NAME_TYPES, true);
      } else {
        r.text(id, 'primaryIdentifier', at, 100, true, true);
        r.text(id, 'secondaryIdentifier', at, 100, false, true);
        r.code(id, 'nameIdentifierType', at, NATURAL_NAME_TYPES, true);
      }
    }
  }
}

function readNaturalName(r: IvmsReader, p: Obj, path: string): string | undefined {
  const name = r.object(p, 'name', path, true);
  if (!name) return undefined;
  const at = `${path}.name`;
  const ids = r.array(name, 'nameIdentifier', at, 1);
  let legal: string | undefined;
  let sawLegl = false;
  // When an identifier is itself wrong (say a bad type code) C5/C6 would only repeat that error.
  const before = r.errors.length;
  for (const [id, idAt] of r.objects(ids, `${at}.nameIdentifier`)) {
    const primary = r.text(id, 'primaryIdentifier', idAt, 100, true);
    const secondary = r.text(id, 'secondaryIdentifier', idAt, 100, false);
    const type = r.code(id, 'nameIdentifierType', idAt, NATURAL_NAME_TYPES, true);
    if (type !== 'LEGL') continue;
    sawLegl = true;
    // The first LEGL name is the one carried; ICAO order puts given names (secondary) first.
    if (legal === undefined && primary)
      legal = secondary ? `${secondary.trim()} ${primary.trim()}` : primary.trim();
  }
  if (ids.length > 0 && !sawLegl && r.errors.length === before)
    r.fail(`${at}.nameIdentifier`, 'Must include a nameIdentifier with nameIdentifierType LEGL (C6)');
  readLocalNames(r, name, at, false);
  return legal;
}

function readLegalName(r: IvmsReader, p: Obj, path: string): string | undefined {
  const name = r.object(p, 'name', path, true);
  if (!name) return undefined;
  const at = `${path}.name`;
  const ids = r.array(name, 'nameIdentifier', at, 1);
  let legal: string | undefined;
  let sawLegl = false;
  // When an identifier is itself wrong (say a bad type code) C5/C6 would only repeat that error.
  const before = r.errors.length;
  for (const [id, idAt] of r.objects(ids, `${at}.nameIdentifier`)) {
    const value = r.text(id, 'legalPersonName', idAt, 100, true);
    const type = r.code(id, 'legalPersonNameIdentifierType', idAt, LEGAL_NAME_TYPES, true);
    if (type !== 'LEGL') continue;
    sawLegl = true;
    if (legal === undefined && value) legal = value.trim();
  }
  if (ids.length > 0 && !sawLegl && r.errors.length === before)
    r.fail(
      `${at}.nameIdentifier`,
      'Must include a nameIdentifier with legalPersonNameIdentifierType LEGL (C5)',
    );
  readLocalNames(r, name, at, true);
  return legal;
}

function readNationalIdOf(r: IvmsReader, p: Obj, path: string, legal: boolean): IvmsNationalId | undefined {
  const n = r.object(p, 'nationalIdentification', path, false);
  return n ? readNationalId(r, n, `${path}.nationalIdentification`, legal) : undefined;
}

/** Validates a NaturalPerson and summarises it. */
export function readNaturalPerson(r: IvmsReader, p: Obj, path: string): IvmsPartySummary {
  const name = readNaturalName(r, p, path);
  const addresses = readAddresses(r, p, path);
  const nationalId = readNationalIdOf(r, p, path, false);
  const customerIdentification = r.text(p, 'customerIdentification', path, 50, false);
  const birth = r.object(p, 'dateAndPlaceOfBirth', path, false);
  let dateOfBirth: string | undefined;
  if (birth) {
    dateOfBirth = r.date(birth, 'dateOfBirth', `${path}.dateAndPlaceOfBirth`);
    r.text(birth, 'placeOfBirth', `${path}.dateAndPlaceOfBirth`, 70, true);
  }
  r.country(p, 'countryOfResidence', path, false);
  return {
    kind: 'natural',
    name,
    addresses,
    nationalId,
    customerIdentification,
    dateOfBirth,
    accountNumbers: [],
  };
}

/** Validates a LegalPerson and summarises it. */
export function readLegalPerson(r: IvmsReader, p: Obj, path: string): IvmsPartySummary {
  const name = readLegalName(r, p, path);
  const addresses = readAddresses(r, p, path);
  // 2023 names it customerIdentification; the 2020 text (and TRISA) customerNumber.
  const customerIdentification =
    r.text(p, 'customerIdentification', path, 50, false) ?? r.text(p, 'customerNumber', path, 50, false);
  const nationalId = readNationalIdOf(r, p, path, true);
  r.country(p, 'countryOfRegistration', path, false);
  return { kind: 'legal', name, addresses, nationalId, customerIdentification, accountNumbers: [] };
}

/** Reads an account number list (Max512Text each). */
export function readAccountNumbers(r: IvmsReader, parent: Obj, path: string): string[] {
  return r
    .array(parent, 'accountNumber', path, 0)
    .map((v, i) => r.textValue(v, `${path}.accountNumber[${i}]`, 512, true))
    .filter((v): v is string => v !== undefined);
}

/** Validates a Person: exactly one of naturalPerson or legalPerson, plus 2023's accountNumber. */
export function readPerson(r: IvmsReader, p: Obj, path: string): IvmsPartySummary | undefined {
  const natural = r.object(p, 'naturalPerson', path, false);
  const legal = r.object(p, 'legalPerson', path, false);
  const accountNumbers = readAccountNumbers(r, p, path);
  const hasNatural = p.naturalPerson !== undefined && p.naturalPerson !== null;
  const hasLegal = p.legalPerson !== undefined && p.legalPerson !== null;
  if (hasNatural === hasLegal) return r.fail(path, 'Must have exactly one of naturalPerson or legalPerson');
  if (natural) return { ...readNaturalPerson(r, natural, `${path}.naturalPerson`), accountNumbers };
  if (legal) return { ...readLegalPerson(r, legal, `${path}.legalPerson`), accountNumbers };
  return undefined;
}

/** C1/C4: an originator person must carry an identification besides the name. */
export function checkOriginatorIdentification(r: IvmsReader, p: IvmsPartySummary, path: string): void {
  const addressTypes = p.kind === 'natural' ? ['GEOG', 'HOME', 'BIZZ'] : ['GEOG'];
  const hasAddress = p.addresses.some((a) => addressTypes.includes(a.addressType));
  if (hasAddress || p.customerIdentification || p.nationalId || p.dateOfBirth) return;
  const rule =
    p.kind === 'natural'
      ? 'Must have geographicAddress, customerIdentification, nationalIdentification or dateAndPlaceOfBirth (C1)'
      : 'Must have a GEOG geographicAddress, customerIdentification or nationalIdentification (C4)';
  r.fail(path, rule);
}
