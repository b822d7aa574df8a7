import { type TSchema, Type } from 'typebox';
import { AlertSchema, CaseListQuery, CaseSchema, listOf, SEVERITIES, STRICT_QUERY } from './cases.schema.ts';
import { Enum } from './common.schema.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Count = Type.Integer({ minimum: 0 });

/** The caller behind the key in use. */
export const WhoAmISchema = Type.Object({
  client_id: Type.String(),
  client_name: Type.String(),
  key_id: Type.String(),
  role: Type.String({ description: 'standard or admin' }),
  environment: Type.String({ description: 'live or sandbox' }),
  sandbox: Type.Boolean(),
  officer: Nullable(Type.String({ description: "the key's compliance officer: the actor of its actions" })),
  officers: Type.Array(Type.String(), { description: "the client's officers, to whom cases are assigned" }),
  time_zone: Type.String({ description: "the client's time zone (deadlines, due today)" }),
});

const QueueCounts = Type.Object({
  open: Count,
  overdue: Count,
  due_today: Type.Integer({
    minimum: 0,
    description: 'not yet overdue, due before midnight (client time zone)',
  }),
});

export const CountsSchema = Type.Object({
  as_of: Type.String({ format: 'date-time' }),
  time_zone: Type.String(),
  alerts: QueueCounts,
  cases: QueueCounts,
});

/** The cases queue's query: the cases listing's filters, and the case's severity. */
export const CaseQueueQuery = Type.Object(
  {
    ...CaseListQuery.properties,
    severity: Type.Optional(Enum(SEVERITIES, 'the case severity: highest of its alerts and its evaluation')),
  },
  STRICT_QUERY,
);

/** A case with its severity. */
const CaseWithSeverity = Type.Object({
  ...CaseSchema.properties,
  severity: Nullable(
    Type.String({ description: 'highest severity of its alerts and evaluation; null when it has none' }),
  ),
});

/** A case of the queue: the case with its severity. */
export const CaseQueueSchema = listOf(CaseWithSeverity);

/** A case page in one answer (GET /api/console/cases/{id}). */
export const CasePageSchema = Type.Object({
  case: CaseWithSeverity,
  alerts: Type.Array(AlertSchema, {
    description:
      'the first 100 linked alerts in `alert_ids` order, each exactly as GET /api/alerts/{id} serves it (payload as delivered)',
  }),
  alerts_total: Type.Integer({ minimum: 0, description: 'all linked alerts (the length of alert_ids)' }),
  alerts_not_shown: Type.Integer({ minimum: 0, description: 'linked alerts beyond the first 100' }),
  evaluations: Type.Array(Type.Unknown(), {
    description:
      "the case's evaluation and those of the shown alerts, each as GET /api/mica/evaluations/{id} returns it",
  }),
  rule_articles: Type.Record(Type.String(), Type.Integer(), {
    description: 'the MiCA / AMLR article of each catalogue rule the case or its evaluations name',
  }),
});

/** What escalating an alert can do (GET /api/console/alerts/{id}/escalation). */
export const EscalationSchema = Type.Object({
  alert_id: Type.String({ format: 'uuid' }),
  status: Type.String(),
  case: Nullable(
    Type.Object(
      {
        id: Type.String({ format: 'uuid' }),
        case_number: Type.String(),
        status: Type.String(),
        open: Type.Boolean(),
      },
      {
        description:
          'the case the alert is in; escalating without case_id keeps it there while it is open, else opens a new case',
      },
    ),
  ),
  open_cases: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      case_number: Type.String(),
      status: Type.String(),
      assignee: Nullable(Type.String()),
      reason: Type.String(),
      due_at: Type.String({ format: 'date-time' }),
    }),
    { description: "the client's open cases it may join (case_id), soonest due first, at most 200" },
  ),
  open_cases_not_shown: Count,
});

export const RuleStatsQuery = Type.Object(
  {
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 30 })),
  },
  STRICT_QUERY,
);

export const RuleStatsSchema = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  days: Type.Array(Type.String({ description: 'UTC date YYYY-MM-DD' })),
  rules: Type.Array(
    Type.Object({
      rule_id: Type.String(),
      name: Type.String(),
      evaluations: Type.Array(Count, { description: 'per day, aligned with `days`' }),
      triggers: Type.Array(Count, { description: 'per day, aligned with `days`' }),
      total_evaluations: Count,
      total_triggers: Count,
    }),
  ),
});

export const TransitionQuerySchema = Type.Object(
  {
    from: Type.Optional(Type.String({ minLength: 1, description: 'ISO 8601 date or date-time (inclusive)' })),
    to: Type.Optional(Type.String({ minLength: 1, description: 'exclusive upper bound' })),
    kind: Type.Optional(Enum(['case', 'alert'] as const)),
    case_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'a case (id or number): its transitions and those of its alerts',
      }),
    ),
    format: Type.Optional(Enum(['json', 'csv'] as const)),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  STRICT_QUERY,
);

export const TransitionSchema = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    kind: Type.String({ description: 'case or alert' }),
    item_id: Type.String({ format: 'uuid' }),
    case_id: Nullable(Type.String({ format: 'uuid' })),
    case_number: Nullable(Type.String()),
    actor: Type.String(),
    actor_name: Nullable(Type.String()),
    from: Nullable(Type.String()),
    to: Type.String(),
    note: Nullable(Type.String()),
    resolution: Nullable(Type.String({ description: 'on a move to closed' })),
  },
  { title: 'Transition' },
);

export const EvaluationRecordSchema = Type.Object(
  {
    evaluation_id: Type.String({ format: 'uuid' }),
    evaluated_at: Type.String({ format: 'date-time' }),
    evaluator_id: Type.String(),
    rule_set_version: Type.String(),
    high_risk_list_date: Nullable(Type.String()),
    request: Type.Unknown({ description: 'the evaluation request as received' }),
    response: Type.Unknown({ description: 'the evaluation response as returned' }),
  },
  { title: 'EvaluationRecord' },
);
