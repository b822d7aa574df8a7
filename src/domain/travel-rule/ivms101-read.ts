// Readers for IVMS101 JSON (IVMS101.2023 §5 datatypes): each reads one element, records a
// `<dotted.ivms.path>: <reason>` error when it is wrong, and returns the value only when it is right.
import { isIsoCountryCode } from '../country-codes.ts';
import { isBlank, isIsoDate, isRecord } from './transfer.ts';

// Code lists in the order the standard's tables give them.
export const NATURAL_NAME_TYPES = ['ALIA', 'BIRT', 'MAID', 'LEGL', 'MISC'] as const;
export const LEGAL_NAME_TYPES = ['LEGL', 'SHRT', 'TRAD'] as const;
export const ADDRESS_TYPES = ['HOME', 'BIZZ', 'GEOG'] as const;
export const NATIONAL_ID_TYPES = [
  'ARNU',
  'CCPT',
  'RAID',
  'DRLC',
  'FIIN',
  'TXID',
  'SOCS',
  'IDCD',
  'LEIX',
  'MISC',
] as const;
export const LEGAL_PERSON_ID_TYPES = ['RAID', 'MISC', 'LEIX', 'TXID'] as const;
export const TRANSLITERATION_METHODS = [
  'arab',
  'aran',
  'armn',
  'cyrl',
  'deva',
  'geor',
  'grek',
  'hani',
  'hebr',
  'kana',
  'kore',
  'thai',
  'othr',
] as const;
// The code list says 101 / 101.2023; the standard's own §8 examples write IVMS101.2023.
export const PAYLOAD_VERSIONS = ['101', '101.2023', 'IVMS101.2023'] as const;

export interface IvmsOptions {
  /** Today as YYYY-MM-DD; when given, C2 (date of birth in the past) is checked. */
  today?: string;
  /** The GLEIF Registration Authorities list; when given, C10 checks membership (else format only). */
  registrationAuthorities?: ReadonlySet<string>;
  /** Enforce C1/C4 (originator identification) as errors; off by default, see ivms101.ts. */
  requireOriginatorIdentification?: boolean;
}

type Obj = Record<string, unknown>;

/** `path.key`, or `key` alone at the top of a document. */
export function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * How many elements a repeated element may have (persons, name identifiers, addresses, accounts,
 * hops): the standard sets no bound, real messages carry a handful, and without one a 1 MiB body
 * of 120,000 empty persons was read one by one into as many errors (seconds, a 12 MB answer).
 */
export const MAX_REPEATED = 100;

/** Collects errors while one IVMS101 document is read. */
export class IvmsReader {
  readonly errors: string[] = [];
  constructor(readonly options: IvmsOptions = {}) {}

  fail(path: string, reason: string): undefined {
    this.errors.push(`${path}: ${reason}`);
    return undefined;
  }

  /** A nested object; absent (or null) is an error only when required. */
  object(parent: Obj, key: string, path: string, required: boolean): Obj | undefined {
    const v = parent[key];
    if (v === undefined || v === null) return required ? this.fail(join(path, key), 'Required') : undefined;
    return isRecord(v) ? v : this.fail(join(path, key), 'Must be an object');
  }

  /** A repeated element; `min` 1 makes it required and non-empty. */
  array(parent: Obj, key: string, path: string, min: 0 | 1, max = MAX_REPEATED): unknown[] {
    const v = parent[key];
    if (v === undefined || v === null) {
      if (min > 0) this.fail(join(path, key), 'Required');
      return [];
    }
    if (!Array.isArray(v)) return this.fail(join(path, key), 'Must be an array') ?? [];
    if (v.length < min) return this.fail(join(path, key), 'Must have at least 1 element') ?? [];
    if (v.length > max) return this.fail(join(path, key), `Must have at most ${max} elements`) ?? [];
    return v;
  }

  /**
   * A MaxNText (printable ASCII, the standard's `^[ -~]{1,N}$`) or, with `local`, a
   * LocalMaxNText (any script). A blank string counts as absent.
   */
  text(
    parent: Obj,
    key: string,
    path: string,
    max: number,
    required: boolean,
    local = false,
  ): string | undefined {
    return this.textValue(parent[key], join(path, key), max, required, local);
  }

  textValue(v: unknown, at: string, max: number, required: boolean, local = false): string | undefined {
    if (isBlank(v)) return required ? this.fail(at, 'Required') : undefined;
    if (typeof v !== 'string') return this.fail(at, 'Must be a string');
    // Lengths count code points, as the standard's regex does, not UTF-16 units.
    if ([...v].length > max) return this.fail(at, `Must be at most ${max} characters`);
    if (!local && !/^[ -~]+$/.test(v))
      return this.fail(at, 'Must contain only printable ASCII (Latin) characters');
    return v;
  }

  /** A SingleValueFromList element. */
  code<T extends string>(
    parent: Obj,
    key: string,
    path: string,
    codes: readonly T[],
    required: boolean,
  ): T | undefined {
    const v = parent[key];
    if (isBlank(v)) return required ? this.fail(join(path, key), 'Required') : undefined;
    if (!codes.includes(v as T)) return this.fail(join(path, key), `Must be one of: ${codes.join(', ')}`);
    return v as T;
  }

  /** A CountryCode: ISO 3166-1 alpha-2 or XX (C3). */
  country(parent: Obj, key: string, path: string, required: boolean): string | undefined {
    const v = parent[key];
    if (isBlank(v)) return required ? this.fail(join(path, key), 'Required') : undefined;
    if (typeof v !== 'string' || (v !== 'XX' && !isIsoCountryCode(v)))
      return this.fail(join(path, key), 'Must be an ISO 3166-1 alpha-2 country code or XX (C3)');
    return v;
  }

  /** A Date (YYYY-MM-DD, a real day); before `options.today` when that is given (C2). */
  date(parent: Obj, key: string, path: string): string | undefined {
    const v = parent[key];
    const at = join(path, key);
    if (isBlank(v)) return this.fail(at, 'Required');
    if (typeof v !== 'string' || !isIsoDate(v)) return this.fail(at, 'Must be a date YYYY-MM-DD');
    const { today } = this.options;
    // ISO dates compare correctly as strings.
    if (today !== undefined && v >= today) return this.fail(at, 'Must be a date in the past (C2)');
    return v;
  }

  /** A RegistrationAuthority code (`RA` + 6 digits) on the GLEIF list when one is supplied (C10). */
  registrationAuthority(parent: Obj, key: string, path: string): string | undefined {
    const v = parent[key];
    const at = join(path, key);
    if (isBlank(v)) return undefined;
    if (typeof v !== 'string' || !/^RA[0-9]{6}$/.test(v))
      return this.fail(at, 'Must be a code RA followed by 6 digits');
    const list = this.options.registrationAuthorities;
    if (list && !list.has(v))
      return this.fail(at, 'Must be on the GLEIF Registration Authorities List (C10)');
    return v;
  }

  /** A Number: a non-negative integer of at most 18 digits. */
  integer(parent: Obj, key: string, path: string): number | undefined {
    const v = parent[key];
    if (v === undefined || v === null) return this.fail(join(path, key), 'Required');
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      return this.fail(join(path, key), 'Must be a non-negative integer');
    return v;
  }

  /** Each element of an array that must be an object, with its indexed path. */
  *objects(items: unknown[], path: string): Generator<[Obj, string, number]> {
    for (const [i, item] of items.entries()) {
      const at = `${path}[${i}]`;
      if (isRecord(item)) yield [item, at, i];
      else this.fail(at, 'Must be an object');
    }
  }
}
