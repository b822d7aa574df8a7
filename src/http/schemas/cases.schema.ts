import { type TSchema, Type } from 'typebox';
import { statusesOf } from '../../domain/cases/state-machines.ts';
import { Enum } from './common.schema.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Uuid = Type.String({ format: 'uuid' });

const HistoryEntry = Type.Object(
  {
    at: DateTime,
    actor: Type.String({ description: "the key's id, or a part of the service (webhook:<kind>, system:…)" }),
    actor_name: Nullable(
      Type.String({ description: 'the person named for the key: its officer, or the X-Actor header' }),
    ),
    from: Nullable(Type.String()),
    to: Type.String(),
    note: Nullable(Type.String()),
  },
  { title: 'HistoryEntry' },
);

export const ALERT_STATUSES = statusesOf('alert');
export const CASE_STATUSES = statusesOf('case');
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

/** An alert (CONTRACT §5). */
export const AlertSchema = Type.Object(
  {
    id: Uuid,
    status: Type.String({ description: ALERT_STATUSES.join(', ') }),
    resolution: Nullable(Type.String()),
    severity: Type.String({ description: SEVERITIES.join(', ') }),
    source: Type.String({ description: 'txmon-a, txmon-b, kyc, screening or evaluation' }),
    event: Nullable(Type.String()),
    vendor_object_id: Nullable(Type.String()),
    customer_id: Nullable(Type.String()),
    transaction_id: Nullable(Type.String()),
    evaluation_id: Nullable(Uuid),
    case_id: Nullable(Uuid),
    due_at: DateTime,
    overdue: Type.Boolean(),
    created_at: DateTime,
    updated_at: DateTime,
    payload: Type.Unknown({
      description:
        "webhooks: the delivered body, the vendor's JSON exactly as received (numbers keep every digit, e.g. 1234567890123456789 or 1e400; read them with a parser that keeps them); null for an evaluation's alert",
    }),
    history: Type.Array(HistoryEntry),
  },
  { title: 'Alert' },
);

/** A case (CONTRACT §5). */
export const CaseSchema = Type.Object(
  {
    id: Uuid,
    case_number: Type.String({ pattern: '^CASE-\\d{4}-\\d{6,}$' }),
    status: Type.String({ description: CASE_STATUSES.join(', ') }),
    resolution: Nullable(Type.String()),
    reason: Type.String(),
    assignee: Nullable(Type.String()),
    rule_ids: Type.Array(Type.String()),
    alert_ids: Type.Array(Uuid),
    evaluation_id: Nullable(Uuid),
    due_at: DateTime,
    overdue: Type.Boolean(),
    created_at: DateTime,
    updated_at: DateTime,
    history: Type.Array(HistoryEntry),
  },
  { title: 'Case' },
);

/**
 * A list or export query names only the filters it knows: a misspelt one (`customer=` for
 * `customer_id=`) would otherwise be ignored, and the caller handed every row as if filtered.
 */
export const STRICT_QUERY = { additionalProperties: false } as const;

const Cursor = Type.String({ minLength: 1, maxLength: 512 });
const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });

export const AlertListQuery = Type.Object(
  {
    status: Type.Optional(Enum(ALERT_STATUSES)),
    severity: Type.Optional(Enum(SEVERITIES)),
    overdue: Type.Optional(Type.Boolean()),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  },
  STRICT_QUERY,
);

export const CaseListQuery = Type.Object(
  {
    status: Type.Optional(Enum(CASE_STATUSES)),
    assignee: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    overdue: Type.Optional(Type.Boolean()),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  },
  STRICT_QUERY,
);

export const listOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), next_cursor: Nullable(Type.String()) });

const Note = Type.String({ maxLength: 2000 });

export const AlertTransitionBody = Type.Object(
  {
    to: Enum(ALERT_STATUSES),
    from: Type.Optional(
      Enum(
        ALERT_STATUSES,
        'the status the caller saw: when the item is no longer in it (someone moved it meanwhile), 409 INVALID_TRANSITION naming the status it is in, and nothing changes',
      ),
    ),
    resolution: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 64,
          description: 'true_positive or false_positive: required with to = closed, refused otherwise',
        }),
      ),
    ),
    note: Type.Optional(Nullable(Note)),
    case_id: Type.Optional(
      Type.String({ format: 'uuid', description: 'with to = escalated: join this case' }),
    ),
  },
  { additionalProperties: false },
);

export const CaseTransitionBody = Type.Object(
  {
    to: Enum(CASE_STATUSES),
    from: Type.Optional(
      Enum(
        CASE_STATUSES,
        'the status the caller saw: when the item is no longer in it (someone moved it meanwhile), 409 INVALID_TRANSITION naming the status it is in, and nothing changes',
      ),
    ),
    resolution: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 64,
          description: 'str_filed, report_filed or no_action: required with to = closed, refused otherwise',
        }),
      ),
    ),
    note: Type.Optional(Nullable(Note)),
  },
  { additionalProperties: false },
);

export const AssignBody = Type.Object(
  { officer: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);
