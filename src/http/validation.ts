import { Ajv, type ErrorObject } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { COUNTRY_FORMAT, countryCodeOf } from '../domain/country-codes.ts';
import { DATE_OR_TIME_FORMAT, isDateOrZonedDateTime } from '../domain/rules/facts.ts';
import { isStorable } from '../storage/storable.ts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ??
  addFormatsImport) as unknown as (ajv: Ajv) => void;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true, // the contract wants every problem reported at once
    strictNumbers: true, // NaN and ±Infinity are not numbers for us
    coerceTypes: coerce ? 'array' : false, // a body's "1000" is a wrong type, a query's "10" is not
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    // Errors carry their schema, so a missing or mistyped enum field can name its allowed values.
    verbose: true,
  });
  addFormats(ajv);
  // Country fields: an assigned code in any case. A typo like "DU" must not pass as a country that
  // is on no high-risk list (MICA-CDD-006 would silently not apply).
  ajv.addFormat(COUNTRY_FORMAT, { type: 'string', validate: (s: string) => countryCodeOf(s) !== undefined });
  // The rules' date fields: accepted exactly when the rules can read them.
  ajv.addFormat(DATE_OR_TIME_FORMAT, { type: 'string', validate: isDateOrZonedDateTime });
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

/**
 * What the schema cannot see in a query string or path after coercion: a number that overflowed to
 * ±Infinity ("1e309" passes Ajv's integer coercion and range checks), and text the database cannot
 * take (a NUL, an unpaired surrogate: %00, %ED%A0%80), which would fail its query with a 500.
 */
function textProblems(data: unknown): ErrorObject[] {
  if (data === null || typeof data !== 'object') return [];
  const out: ErrorObject[] = [];
  // Runs on every query string: nothing is allocated unless a value is refused.
  for (const key in data) {
    const value = (data as Record<string, unknown>)[key];
    const problem = Array.isArray(value) ? value.map(valueProblem).find(Boolean) : valueProblem(value);
    if (problem)
      out.push({
        instancePath: `/${key}`,
        schemaPath: `#/properties/${key}`,
        keyword: problem[0],
        params: {},
        message: problem[1],
      });
  }
  return out;
}

function valueProblem(v: unknown): [keyword: string, message: string] | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : ['finite', 'Must be a finite number'];
  if (typeof v === 'string' && !isStorable(v))
    return ['storable', 'Contains characters that cannot be stored'];
  return undefined;
}

/** A whole number as a query string writes one: digits, an optional minus. */
const WHOLE_NUMBER = /^-?[0-9]+$/;

/**
 * The integer parameters of a query or path schema. Ajv's coercion takes any text that JavaScript
 * reads as that number: " " as 0, "0x10" as 16, "1e3" as 1000, so `after_seq=` with a blank
 * variable would have answered the whole chain again. Such text is refused before coercion.
 */
function integerKeys(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(props).filter((k) => props[k]?.type === 'integer');
}

function integerTextProblems(data: unknown, keys: string[]): ErrorObject[] {
  if (keys.length === 0 || data === null || typeof data !== 'object') return [];
  const out: ErrorObject[] = [];
  for (const key of keys) {
    const value = (data as Record<string, unknown>)[key];
    if (typeof value === 'string' && !WHOLE_NUMBER.test(value))
      out.push({
        instancePath: `/${key}`,
        schemaPath: `#/properties/${key}/type`,
        keyword: 'type',
        params: { type: 'integer' },
        message: 'Must be a whole number written in digits',
      });
  }
  return out;
}

/** Bodies are validated strictly; query strings and params are coerced from text. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return bodyAjv.compile(schema as object);
  const validate = queryAjv.compile(schema as object);
  const integers = integerKeys(schema);
  // Fastify reads a refusal's problems from the validator's `errors`, as Ajv's own function has them.
  const checked = (data: unknown) => {
    const loose = integerTextProblems(data, integers);
    if (loose.length > 0) {
      checked.errors = loose;
      return false;
    }
    const ok = validate(data);
    checked.errors = ok ? textProblems(data) : validate.errors;
    return checked.errors === null || checked.errors === undefined || checked.errors.length === 0;
  };
  checked.errors = null as ErrorObject[] | null | undefined;
  return checked;
};

export { describeAjvErrors, type FieldProblem } from '../validation-problems.ts';
