import type { ErrorObject } from 'ajv';
import { COUNTRY_FORMAT } from './domain/country-codes.ts';
import { DATE_OR_TIME_FORMAT, DATE_OR_TIME_REASON } from './domain/rules/facts.ts';

// Ajv's errors (and TypeBox's, which have their shape) as the contract reports them: one problem
// per field, `<field>: Required` or `<field>: Must be one of: …` (CONTRACT §3). Shared by the HTTP
// validation and the operator commands.

function fieldOf(e: ErrorObject, prefix: string): string {
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (e.keyword === 'required') path.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === 'additionalProperties')
    path.push(String((e.params as { additionalProperty: string }).additionalProperty));
  let out = prefix;
  for (const p of path) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out || 'body';
}

function reasonOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'Required';
    case 'enum':
      return `Must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `Must be ${String(p.allowedValue)}`;
    case 'type':
      return `Expected ${String(p.type)}`;
    case 'additionalProperties':
      return 'Unknown field';
    case 'minimum':
      return `Must be >= ${String(p.limit)}`;
    case 'maximum':
      return `Must be <= ${String(p.limit)}`;
    case 'minLength':
      // An empty string is no value: reported as the spec's `<field>: Required`.
      return Number(p.limit) === 1 ? 'Required' : `Must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `Must be at most ${String(p.limit)} characters`;
    case 'pattern':
      return 'Invalid format';
    case 'format':
      if (p.format === COUNTRY_FORMAT) return 'Must be an ISO 3166-1 alpha-2 country code';
      if (p.format === DATE_OR_TIME_FORMAT) return DATE_OR_TIME_REASON;
      return `Must be a valid ${String(p.format)}`;
    default:
      return e.message ?? 'Invalid value';
  }
}

export interface FieldProblem {
  field: string;
  reason: string;
  /** The values the field takes, when it is an enum that is missing (the reason says "Required"). */
  allowed?: unknown[];
}

/** The allowed values of a union of literals (TypeBox's Union of Literal: anyOf of const). */
function literalsOf(schema: unknown): unknown[] | undefined {
  const anyOf = (schema as { anyOf?: unknown } | undefined)?.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length === 0) return undefined;
  const values: unknown[] = [];
  for (const branch of anyOf) {
    if (!branch || typeof branch !== 'object' || !('const' in branch)) return undefined;
    values.push(branch.const);
  }
  return values;
}

/** A missing property's allowed values, read from the object schema that requires it. */
function allowedOfMissing(e: ErrorObject): unknown[] | undefined {
  const name = String((e.params as { missingProperty: string }).missingProperty);
  const props = (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return literalsOf(props?.[name]);
}

/** A branch of a union of literals: an error in it (wrong value or wrong type) means "one of". */
function literalBranch(e: ErrorObject): unknown[] | undefined {
  if (!e.schemaPath.includes('/anyOf/')) return undefined;
  // TypeBox's Value.Errors (operator commands) carry no schema, but a const error names its value.
  if (e.keyword === 'const') return [(e.params as { allowedValue: unknown }).allowedValue];
  const branch = e.parentSchema as { const?: unknown } | undefined;
  return branch && 'const' in branch ? [branch.const] : undefined;
}

/**
 * TypeBox's Value.Errors names every missing property of an object in one `required` error
 * (`requiredProperties`); Ajv gives one error per property (`missingProperty`): made alike.
 */
function oneMissingEach(e: ErrorObject): ErrorObject[] {
  const p = e.params as { missingProperty?: unknown; requiredProperties?: unknown };
  if (e.keyword !== 'required' || p.missingProperty !== undefined || !Array.isArray(p.requiredProperties))
    return [e];
  return p.requiredProperties.map((name) => ({ ...e, params: { missingProperty: String(name) } }));
}

/**
 * Turns Ajv errors into one problem per field. Unions (`anyOf` of literals) report one error per
 * branch; they are folded into a single "Must be one of" so the caller sees the allowed values.
 */
export function describeAjvErrors(errors: ErrorObject[], prefix = ''): FieldProblem[] {
  const out = new Map<string, string>();
  const unionValues = new Map<string, unknown[]>();
  const allowedWhenMissing = new Map<string, unknown[]>();
  for (const e of errors.flatMap(oneMissingEach)) {
    if (e.keyword === 'if' || e.keyword === 'allOf') continue;
    const field = fieldOf(e, prefix);
    const branch = literalBranch(e);
    if (branch) {
      // A wrong type fails a branch's type and its const: the value is counted once.
      const list = unionValues.get(field) ?? [];
      if (!list.includes(branch[0])) list.push(branch[0]);
      unionValues.set(field, list);
      if (!out.has(field)) out.set(field, '');
      continue;
    }
    if (e.keyword === 'required') {
      const allowed = allowedOfMissing(e);
      if (allowed) allowedWhenMissing.set(field, allowed);
    }
    if (e.keyword === 'anyOf' && unionValues.has(field)) continue;
    if (e.keyword === 'anyOf' && out.has(field)) continue;
    if (!out.has(field) || out.get(field) === '') out.set(field, reasonOf(e));
  }
  for (const [field, values] of unionValues) {
    if (out.get(field) === '' || out.get(field)?.startsWith('must match'))
      out.set(field, `Must be one of: ${values.join(', ')}`);
  }
  const problems = [...out].map(([field, reason]) => {
    const allowed = allowedWhenMissing.get(field);
    return { field, reason: reason || 'Invalid value', ...(allowed ? { allowed } : {}) };
  });
  // The first problem names "the first bad field" (CONTRACT §3). Ajv checks a schema's allOf (the
  // context's `data` schema) before the request's own fields, so a missing client_id would come
  // after a bad data.amount_eur; a field of the request is named before a field inside one.
  return problems.sort((a, b) => depthOf(a.field) - depthOf(b.field));
}

/** How deep a field's path lies: `client_id` 0, `data.amount_eur` 1, `data.originator.name` 2. */
function depthOf(field: string): number {
  let depth = 0;
  for (const ch of field) if (ch === '.' || ch === '[') depth++;
  return depth;
}
