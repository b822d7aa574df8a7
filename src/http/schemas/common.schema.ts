import { Type } from 'typebox';
import { INVISIBLE_CLASS } from '../../domain/visible-text.ts';

/** Patterns of a string with no visible character (see domain/visible-text.ts), and of one with some. */
export const BLANK_TEXT = `^[${INVISIBLE_CLASS}]*$`;
export const VISIBLE_TEXT = `[^${INVISIBLE_CLASS}]`;

/** Nested error body (evaluate, audit, alerts, cases). */
export const NestedError = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(
        Type.Object(
          {
            field: Type.Optional(Type.String()),
            reason: Type.Optional(Type.String()),
            errors: Type.Optional(Type.Array(Type.String())),
          },
          { additionalProperties: true },
        ),
      ),
    }),
  },
  { $id: 'NestedError' },
);

/** Flat error body (screening, travel rule, operational endpoints). */
export const FlatError = Type.Object(
  {
    error: Type.String(),
    type: Type.String(),
    details: Type.Object({}, { additionalProperties: true }),
    statusCode: Type.Integer(),
  },
  { $id: 'FlatError' },
);

export const NonNegative = (description?: string) => Type.Number({ minimum: 0, description });
export const Enum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

/** Responses every authenticated nested-format route may give. */
export const nestedErrorResponses = {
  400: NestedError,
  401: NestedError,
  404: NestedError,
  413: NestedError,
  429: NestedError,
  500: NestedError,
  503: NestedError,
};
