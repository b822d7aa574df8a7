import { randomUUID } from 'node:crypto';
import { type Actor, evaluatorIdOf } from '../domain/actor.ts';
import { alertDueAt, caseDueAt } from '../domain/cases/due-dates.ts';
import { findRule } from '../domain/rules/catalogue.ts';
import { evaluateEvent, priorSumMatters, selectRules, UnknownRuleError } from '../domain/rules/engine.ts';
import type { ClientRuleSettings } from '../domain/rules/settings.ts';
import { highestSeverity } from '../domain/rules/summary.ts';
import type { EvaluationSummary, TriggerType } from '../domain/rules/types.ts';
import { isChain, validateAddress } from '../domain/screening/index.ts';
import { AppError, fieldError, validationError } from '../errors.ts';
import type { AuditWriter } from '../storage/audit-writer.ts';
import type { EvaluationRecord, EvaluationsRepo } from '../storage/evaluations.repo.ts';
import { createKeyedTurns } from './keyed-turns.ts';
import type { Principal } from './keys.service.ts';
import type { Limits } from './rate-limit.service.ts';
import type { WindowStore } from './window-store.ts';

/** The evaluation request after schema validation. */
export interface EvaluationRequest {
  client_id: string;
  trigger_type: TriggerType;
  trigger_entity_type?: string;
  trigger_entity_id?: string;
  data: Record<string, unknown>;
}

/** Exactly the response fields of the spec, in its order. */
export interface EvaluationResponse extends EvaluationSummary {
  evaluation_id: string;
  timestamp: string;
}

export interface ClientContext {
  settings: ClientRuleSettings;
  rateLimits: Required<Limits>;
  isHoliday?: (isoDate: string) => boolean;
}

const DEFAULT_ENTITY: Record<TriggerType, string | null> = {
  transaction: 'transaction',
  wallet_screen: 'wallet',
  travel_rule: 'transfer',
  periodic: 'governance',
  manual: null,
};

function entityTypeOf(req: EvaluationRequest): string | null {
  if (req.trigger_entity_type) return req.trigger_entity_type;
  if (req.trigger_type === 'periodic' && typeof req.data.customer_id === 'string') return 'customer';
  return DEFAULT_ENTITY[req.trigger_type];
}

/**
 * The entity's id, for the audit rows: the caller's `trigger_entity_id`, else the context's own id
 * in `data` (the spec: a transfer's id for travel_rule, the address for wallet_screen), so the
 * audit finds the event by it whichever way it was sent.
 */
function entityIdOf(req: EvaluationRequest): string | null {
  if (req.trigger_entity_id !== undefined) return req.trigger_entity_id;
  const own =
    req.trigger_type === 'travel_rule'
      ? req.data.transfer_id
      : req.trigger_type === 'wallet_screen'
        ? req.data.wallet_address
        : undefined;
  return typeof own === 'string' && own !== '' ? own : null;
}

/** The entity types each context takes (the spec: "fixed per context"); a manual evaluation any. */
const ENTITY_TYPES_OF: Partial<Record<string, readonly string[]>> = {
  transaction: ['transaction'],
  wallet_screen: ['wallet'],
  travel_rule: ['transfer'],
  periodic: ['governance', 'customer'],
};
const KNOWN_ENTITY_TYPES = new Set(Object.values(ENTITY_TYPES_OF).flat());

/**
 * The customer an evaluation is about, for the audit rows and the alert: `customer_id`; for a
 * transfer, the client's own party (the originator of an outbound one, the beneficiary of an
 * inbound one), else the other party that names one (a manual evaluation may carry either).
 */
function customerOf(req: EvaluationRequest): string | null {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const d = req.data;
  const own = text(d.customer_id);
  if (own !== undefined || (req.trigger_type !== 'travel_rule' && req.trigger_type !== 'manual'))
    return own ?? null;
  const originator = text(d.originator_customer_id);
  const beneficiary = text(d.beneficiary_customer_id);
  return (d.direction === 'inbound' ? (beneficiary ?? originator) : (originator ?? beneficiary)) ?? null;
}

function finiteAmount(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const STR_RULE = 'MICA-RPT-001';
const CDD_THRESHOLD_RULE = 'MICA-CDD-002';

/** Where a transaction counts in its customer's rolling window (MICA-CDD-002). */
type WindowEntry = { customerId: string; amount: number };

/** Whether a manual evaluation's `rule_ids` takes in the rule (absent: every rule). */
function namesRule(ruleIds: unknown, id: string): boolean {
  return !Array.isArray(ruleIds) || ruleIds.includes(id);
}

/**
 * The alert and case an evaluation opens (CONTRACT §5): a case when a triggered rule lists
 * create_case, an alert when one has result alert; both reference the evaluation and its rules.
 */
function followUpsOf(
  req: EvaluationRequest,
  res: EvaluationResponse,
  ctx: ClientContext,
  actor: Actor,
  customerId: string | null,
  linkCaseId?: string,
): EvaluationRecord['followUps'] {
  if (!res.should_create_case && !res.should_alert) return undefined;
  const created = new Date(res.timestamp);
  const calendar = { timeZone: ctx.settings.time_zone, isHoliday: ctx.isHoliday };
  const triggered = res.results.filter((r) => r.triggered);
  const ruleIds = triggered.map((r) => r.rule_id);
  const caseRules = triggered
    .filter((r) => r.actions_to_execute.includes('create_case'))
    .map((r) => r.rule_id);
  const newCase = res.should_create_case
    ? {
        id: randomUUID(),
        client_id: req.client_id,
        reason: `Evaluation ${res.evaluation_id}: ${caseRules.join(', ')}`,
        is_str: caseRules.includes(STR_RULE),
        rule_ids: ruleIds,
        evaluation_id: res.evaluation_id,
        due_at: caseDueAt(created, calendar).toISOString(),
        created_at: res.timestamp,
        actor: actor.id,
        actor_name: actor.name,
      }
    : undefined;
  // The alert is the alert rules' (should_alert means one triggered): its severity, and so its
  // deadline, is theirs. A block rule's severity is not the alert's: a critical CDD-001 beside a
  // medium RPT-004 alert made that alert due in 4 hours instead of 48.
  const alertRules = triggered.filter((r) => r.result === 'alert');
  const severity = highestSeverity(alertRules) ?? res.highest_severity ?? 'medium';
  const alert = res.should_alert
    ? {
        id: randomUUID(),
        client_id: req.client_id,
        severity,
        source: 'evaluation',
        event: req.trigger_type,
        vendor_object_id: null,
        customer_id: customerId,
        // A transfer is a transaction: its alert names it as a transaction's does.
        transaction_id:
          req.trigger_type === 'transaction' || req.trigger_type === 'travel_rule' ? entityIdOf(req) : null,
        evaluation_id: res.evaluation_id,
        case_id: newCase?.id ?? linkCaseId ?? null,
        rule_ids: alertRules.map((r) => r.rule_id),
        due_at: alertDueAt(severity, created, calendar).toISOString(),
        created_at: res.timestamp,
        payload: null,
        headers: null,
        actor: actor.id,
        actor_name: actor.name,
      }
    : undefined;
  return { case: newCase, alert };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * What an evaluation request's schema cannot see, each as `<field>: <reason>`: an entity type
 * that is not its context's, a wallet_screen address not valid for its blockchain (CONTRACT §7, as
 * in screening), unknown rule ids of a manual selection. Read defensively, so that a body which also
 * fails its schema gets these listed with the rest (CONTRACT §3: every problem at once).
 */
export function evaluationRequestProblems(body: unknown): string[] {
  if (!isRecord(body)) return [];
  const problems: string[] = [];
  const { trigger_type: trigger, trigger_entity_type: entity } = body;
  const data = isRecord(body.data) ? body.data : {};
  const allowed = typeof trigger === 'string' ? ENTITY_TYPES_OF[trigger] : undefined;
  // An entity type the schema knows, but not this context's (one it does not know, it reports).
  if (typeof entity === 'string' && allowed && KNOWN_ENTITY_TYPES.has(entity) && !allowed.includes(entity))
    problems.push(`trigger_entity_type: Must be one of: ${allowed.join(', ')} (for trigger_type ${trigger})`);
  // A manual evaluation names its chain too: the address is checked for it as on a wallet screen.
  if (
    (trigger === 'wallet_screen' || trigger === 'manual') &&
    typeof data.wallet_address === 'string' &&
    isChain(data.blockchain)
  ) {
    const valid = validateAddress(data.blockchain, data.wallet_address);
    if (!valid.ok) problems.push(`data.wallet_address: ${valid.reason}`);
  }
  if (trigger === 'manual' && Array.isArray(data.rule_ids)) {
    const ids = data.rule_ids.filter((id): id is string => typeof id === 'string');
    const unknown = [...new Set(ids.filter((id) => findRule(id) === undefined))];
    if (unknown.length > 0) problems.push(`data.rule_ids: Unknown rule ids: ${unknown.join(', ')}`);
  }
  return problems;
}

/**
 * A request of the evaluation API whose rules the client's settings all switch off (a manual
 * evaluation naming a disabled rule, or a context whose every rule is disabled) is refused: it would
 * be answered with no result, and leave no row in `mica_rule_evaluations` to show it was asked.
 */
function disabledSelectionProblems(req: EvaluationRequest, settings: ClientRuleSettings): string[] {
  const disabled = settings.disabled_rules;
  if (disabled.length === 0) return [];
  const where = "disabled in this client's settings (disabled_rules)";
  if (req.trigger_type === 'manual' && Array.isArray(req.data.rule_ids)) {
    const named = [...new Set(req.data.rule_ids.filter((id) => disabled.includes(String(id))))];
    return named.length > 0
      ? [`data.rule_ids: ${named.join(', ')} ${named.length > 1 ? 'are' : 'is'} ${where}`]
      : [];
  }
  const selected = selectRules(req.trigger_type, req.data);
  return selected.every((r) => disabled.includes(r.id))
    ? [`trigger_type: Every rule of the ${req.trigger_type} context is ${where}: nothing would be evaluated`]
    : [];
}

/** The engine's refusal of a manual selection is the caller's error (400), not ours. */
function evaluateOrReject(input: Parameters<typeof evaluateEvent>[0]) {
  try {
    return evaluateEvent(input);
  } catch (e) {
    if (!(e instanceof UnknownRuleError)) throw e;
    const reason = e.unknownIds.length ? `Unknown rule ids: ${e.unknownIds.join(', ')}` : e.message;
    throw fieldError('data.rule_ids', reason);
  }
}

/** Runs the rule engine for a caller, commits the audit record, then returns the response. */
export function createEvaluationService(deps: {
  clientContext: (clientId: string) => Promise<ClientContext | undefined>;
  evaluations: Pick<EvaluationsRepo, 'responseOf'>;
  window: WindowStore;
  audit: Pick<AuditWriter, 'write'>;
  now?: () => Date;
  /** Told of every committed evaluation's rule results (metrics). */
  onEvaluated?: (results: EvaluationResponse['results']) => void;
}) {
  const now = deps.now ?? (() => new Date());
  const turns = createKeyedTurns();
  const transactionTurns = createKeyedTurns();

  /**
   * The customer and amount a transaction evaluation files in the rolling window (MICA-CDD-002),
   * if any. A re-evaluated transaction id that leaves out its customer or its amount keeps those it
   * is counted with, and takes this evaluation's decision: the latest decision on a transaction says
   * whether its money moves, so a transaction blocked now no longer counts, and one blocked before
   * and allowed now does.
   */
  async function windowEntryOf(
    req: EvaluationRequest,
    customerId: string | undefined,
    amount: number | undefined,
  ): Promise<WindowEntry | undefined> {
    if (req.trigger_type !== 'transaction') return undefined;
    if (customerId !== undefined && amount !== undefined) return { customerId, amount };
    if (req.trigger_entity_id === undefined) return undefined;
    const known = await deps.window.known(req.client_id, req.trigger_entity_id);
    return known && { customerId: customerId ?? known.customer_id, amount: amount ?? known.amount_eur };
  }

  return {
    /**
     * Returns the response and its JSON text (the exact bytes stored and answered). `by` is who
     * asked (default: the key, unnamed); `options.caseId` ties the alert it opens to an existing case
     * (the STR sweep's alert to its STR case); `options.refuseDisabledSelection`, for the evaluation
     * API, refuses a request whose rules are all disabled (disabledSelectionProblems). Screening and
     * travel-rule answers stand without their rules (the risk profile, the completeness check).
     */
    async evaluate(
      principal: Principal,
      req: EvaluationRequest,
      by?: Actor,
      options?: { caseId?: string; refuseDisabledSelection?: boolean },
    ) {
      const actor = by ?? { id: principal.keyId, name: null, key: true };
      // A client the key does not own looks exactly like one that does not exist.
      const ctx = req.client_id === principal.clientId ? await deps.clientContext(req.client_id) : undefined;
      // Every problem at once (CONTRACT §3): the request's, and the selection the client's settings
      // leave empty (that one needs the client's settings, so only for the key's own client).
      const problems = [
        ...evaluationRequestProblems(req),
        ...(ctx && options?.refuseDisabledSelection ? disabledSelectionProblems(req, ctx.settings) : []),
      ];
      if (problems.length > 0) throw validationError(problems);
      if (!ctx)
        throw new AppError('CLIENT_NOT_FOUND', `Client ${req.client_id} not found`, { field: 'client_id' });

      const data = req.data;
      const amount = finiteAmount(data.amount_eur);
      const customerId = typeof data.customer_id === 'string' ? data.customer_id : undefined;
      // Whom the audit rows and the alert name (for a transfer, the client's own party).
      const customer = customerOf(req);
      // A manual check of MICA-CDD-002 for a customer and an amount judges that amount as the
      // customer's next transaction would be judged (its rolling sum included), without adding it
      // to the window: a manual evaluation moves no money.
      const manualSumOf =
        req.trigger_type === 'manual' &&
        customerId !== undefined &&
        amount !== undefined &&
        namesRule(data.rule_ids, CDD_THRESHOLD_RULE)
          ? customerId
          : undefined;

      /** `filed`: where this transaction counts in the rolling window (windowEntryOf), if anywhere. */
      const decide = async (filed: WindowEntry | undefined) => {
        const at = now();
        const evaluationId = randomUUID();
        const transactionId = req.trigger_entity_id ?? evaluationId;

        // A transaction with its amount is judged with its customer's rolling sum, the customer
        // being the one it is counted with when the request leaves it out.
        const sumOf = amount !== undefined && filed ? filed.customerId : manualSumOf;
        let prior: number | undefined;
        if (sumOf !== undefined && priorSumMatters(amount, ctx.settings)) {
          const since = new Date(at.getTime() - ctx.settings.thresholds.cumulative_window_days * 86_400_000);
          prior = await deps.window.priorSum(req.client_id, sumOf, since, transactionId);
        }

        const outcome = evaluateOrReject({
          triggerType: req.trigger_type,
          data,
          settings: ctx.settings,
          env: { now: at, priorCumulativeAmountEur: prior, isHoliday: ctx.isHoliday },
        });

        const response: EvaluationResponse = {
          rules_evaluated: outcome.rules_evaluated,
          rules_triggered: outcome.rules_triggered,
          evaluation_id: evaluationId,
          timestamp: at.toISOString(),
          results: outcome.results,
          highest_severity: outcome.highest_severity,
          actions_required: outcome.actions_required,
          should_block: outcome.should_block,
          should_alert: outcome.should_alert,
          should_create_case: outcome.should_create_case,
        };
        const responseJson = JSON.stringify(response);

        const record: EvaluationRecord = {
          evaluation_id: evaluationId,
          client_id: req.client_id,
          trigger_type: req.trigger_type,
          trigger_entity_type: entityTypeOf(req),
          trigger_entity_id: entityIdOf(req),
          customer_id: customer,
          evaluated_at: response.timestamp,
          rule_set_version: outcome.rule_set_version,
          high_risk_list_date: outcome.high_risk_list_date,
          evaluator_id: evaluatorIdOf(actor),
          rules_evaluated: outcome.rules_evaluated,
          rules_triggered: outcome.rules_triggered,
          transaction_blocked: outcome.should_block,
          alert_generated: outcome.should_alert,
          case_created: outcome.should_create_case,
          highest_severity: outcome.highest_severity,
          rule_ids: outcome.results.map((r) => r.rule_id),
          requestJson: JSON.stringify(req),
          responseJson,
          followUps: followUpsOf(req, response, ctx, actor, customer, options?.caseId),
          customerTransaction: filed
            ? {
                transaction_id: transactionId,
                customer_id: filed.customerId,
                amount_eur: filed.amount,
                blocked: outcome.should_block,
              }
            : undefined,
        };
        // The answer leaves only after its audit record is committed.
        await deps.audit.write(record);
        if (record.customerTransaction)
          deps.window.committed({
            ...record.customerTransaction,
            client_id: req.client_id,
            evaluated_at: at,
          });
        deps.onEvaluated?.(response.results);
        return { response, responseJson };
      };
      // A customer's transactions are decided one after another: each reads the rolling sum only
      // once the one before is committed, so transfers sent in parallel cannot each see the sum
      // without the others and together pass MICA-CDD-002 unnoticed (structuring).
      const inCustomerTurn = (filed: WindowEntry | undefined) =>
        filed
          ? turns.run(`${req.client_id}\u0000${filed.customerId}`, () => decide(filed))
          : decide(undefined);
      if (req.trigger_type !== 'transaction' || req.trigger_entity_id === undefined)
        return inCustomerTurn(await windowEntryOf(req, customerId, amount));
      // The evaluations of one transaction id also take turns, and where it counts is read in its
      // turn: one that leaves out the amount or customer files what the evaluation before it
      // committed (a corrected amount, another customer), not what was there when it arrived.
      const id = req.trigger_entity_id;
      return transactionTurns.run(`${req.client_id}\u0000${id}`, async () =>
        inCustomerTurn(await windowEntryOf(req, customerId, amount)),
      );
    },

    /** The stored evaluation as it was returned, within the caller's client. */
    async get(principal: Principal, evaluationId: string): Promise<unknown> {
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
      const stored = uuid.test(evaluationId)
        ? await deps.evaluations.responseOf(principal.clientId, evaluationId.toLowerCase())
        : undefined;
      if (stored === undefined) throw new AppError('NOT_FOUND', `Evaluation ${evaluationId} not found`);
      return stored;
    },
  };
}
export type EvaluationService = ReturnType<typeof createEvaluationService>;
