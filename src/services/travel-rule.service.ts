import type { Cache } from '../cache/cache.port.ts';
import { tolerantCache } from '../cache/tolerant-cache.ts';
import type { Actor } from '../domain/actor.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import type { RuleResult } from '../domain/rules/types.ts';
import { sha256Hex } from '../domain/sha256.ts';
import {
  assessCompleteness,
  type CaspDirectory,
  isSelfHosted,
  parseTravelRuleRequest,
  type TravelRuleTransfer,
  verifyCounterparty,
} from '../domain/travel-rule/index.ts';
import { validationError } from '../errors.ts';
import { CACHE_TTL_SECONDS, rulesFingerprint, travelCacheKey } from './cache-keys.ts';
import type { CacheStatsService } from './cache-stats.service.ts';
import { answerOfEntry, cacheEntry, type EvaluatedAnswer } from './evaluated-answer.ts';
import type { ClientContext, EvaluationService } from './evaluation.service.ts';
import type { Principal } from './keys.service.ts';
import { createSingleFlight } from './single-flight.ts';

/** The response of POST /api/mica/travel-rule-validation (service-spec, CONTRACT §7). */
export interface TravelRuleResponse {
  validation_result: {
    transfer_id: string;
    data_completeness: 'complete' | 'partial' | 'missing';
    required_fields: string[];
    self_hosted: boolean;
    counterparty_verified: boolean;
  };
  rule_evaluation: {
    rules_triggered: number;
    should_alert: boolean;
    should_block: boolean;
    actions: string[];
    triggered_rules: RuleResult[];
  };
}

/**
 * The decision words of CONTRACT §7, in its order: BLOCK (a block rule: MICA-TR-001 or
 * MICA-CDD-003), REVIEW (an alert rule, or a named counterparty that is not verified),
 * REQUEST_INFO (a fail rule; none in this context today); ALLOW when none applies.
 */
export function travelRuleActions(results: readonly RuleResult[], unverifiedCounterparty: boolean): string[] {
  const triggered = results.filter((r) => r.triggered);
  const actions: string[] = [];
  if (triggered.some((r) => r.result === 'block')) actions.push('BLOCK');
  if (triggered.some((r) => r.result === 'alert') || unverifiedCounterparty) actions.push('REVIEW');
  if (triggered.some((r) => r.result === 'fail')) actions.push('REQUEST_INFO');
  return actions.length > 0 ? actions : ['ALLOW'];
}

/** The `data` of the travel_rule evaluation, in the spec's field names (service-spec "travel_rule"). */
function evaluationData(
  t: TravelRuleTransfer,
  facts: {
    data_completeness: string;
    required_fields: string[];
    self_hosted: boolean;
    counterparty_verified: boolean;
  },
) {
  const { originator: o, beneficiary: b } = t;
  return {
    transfer_id: t.transfer_id,
    direction: t.direction,
    amount_eur: t.amount_eur,
    amount_crypto: t.amount_crypto ?? 0,
    originator_name: o.name,
    originator_customer_id: o.customer_id,
    originator_wallet_address: o.wallet_address,
    beneficiary_name: b.name,
    beneficiary_customer_id: b.customer_id,
    beneficiary_wallet_address: b.wallet_address,
    // Internal: the beneficiary is one of the client's own customers.
    transfer_type: b.customer_id !== undefined ? 'internal' : 'external',
    data_completeness: facts.data_completeness,
    self_hosted_wallet: facts.self_hosted,
    ownership_verified: t.ownership_verified === true,
    // Extensions kept with the audit record, so it shows what was judged (the originator's data
    // the completeness rests on, and what was missing) and why REVIEW was answered.
    originator_geographic_address: o.geographic_address,
    originator_national_id: o.national_id,
    originator_date_of_birth: o.date_of_birth,
    required_fields: facts.required_fields,
    beneficiary_casp_name: b.casp_name,
    beneficiary_casp_lei: b.casp_lei,
    counterparty_verified: facts.counterparty_verified,
    blockchain: t.blockchain,
  };
}

/**
 * Travel-rule validation: the domain checks the body, grades completeness, detects self-hosted
 * beneficiaries and verifies the counterparty; the rules run through the evaluation service, so the
 * evaluation is audited exactly like POST /evaluate. Answers are cached per client and transfer
 * with a fingerprint of the body, the directory version and the client's rule-set version: a changed
 * body, a new directory or changed settings are validated again rather than served stale.
 */
export function createTravelRuleService(deps: {
  evaluation: Pick<EvaluationService, 'evaluate'>;
  directory: () => Promise<CaspDirectory & { version: number }>;
  clientContext: (clientId: string) => Promise<Pick<ClientContext, 'settings'> | undefined>;
  cache: Pick<Cache, 'get' | 'set'>;
  stats: Pick<CacheStatsService, 'record'>;
  onCacheError?: (err: unknown) => void;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  const ttl = CACHE_TTL_SECONDS.travel_rule;

  const { get: cacheGet, set: cacheSet } = tolerantCache(deps.cache, ttl, deps.onCacheError);
  const flights = createSingleFlight<EvaluatedAnswer>();

  return {
    /**
     * Validates one request for the caller; returns the response as JSON text (cached or new) and
     * the evaluation it comes from (for a cached or shared answer, the one that produced it).
     */
    async validate(principal: Principal, body: unknown, by?: Actor): Promise<EvaluatedAnswer> {
      // C2 (a date of birth in the past) needs today; the rest of the check is pure.
      const parsed = parseTravelRuleRequest(body, { today: now().toISOString().slice(0, 10) });
      if (!parsed.ok) throw validationError(parsed.errors);
      const transfer = parsed.transfer;
      const directory = await deps.directory();

      const key = travelCacheKey(principal.clientId, transfer.transfer_id);
      const ctx = await deps.clientContext(principal.clientId);
      const fingerprint = `${sha256Hex(canonicalJson(body))}.${directory.version}.${rulesFingerprint(ctx?.settings)}`;
      const cached = answerOfEntry(await cacheGet(key), fingerprint);
      if (cached) {
        deps.stats.record(principal.clientId, 'travel_rule', true);
        return cached;
      }
      // The same body at the same moment is validated once, as it would be one after the other.
      let shared = false;
      try {
        const flight = await flights.run(`${key}\n${fingerprint}`, () =>
          validateUncached(principal, transfer, directory, by, key, fingerprint),
        );
        shared = flight.shared;
        return flight.value;
      } finally {
        deps.stats.record(principal.clientId, 'travel_rule', shared);
      }
    },
  };

  async function validateUncached(
    principal: Principal,
    transfer: TravelRuleTransfer,
    directory: CaspDirectory,
    by: Actor | undefined,
    key: string,
    fingerprint: string,
  ): Promise<EvaluatedAnswer> {
    const { data_completeness, required_fields } = assessCompleteness(transfer);
    const self_hosted = isSelfHosted(transfer);
    const counterparty_verified = !self_hosted && verifyCounterparty(transfer, directory);
    const { response: evaluation } = await deps.evaluation.evaluate(
      principal,
      {
        client_id: principal.clientId,
        trigger_type: 'travel_rule',
        trigger_entity_type: 'transfer',
        trigger_entity_id: transfer.transfer_id,
        data: evaluationData(transfer, {
          data_completeness,
          required_fields,
          self_hosted,
          counterparty_verified,
        }),
      },
      by,
    );

    const response: TravelRuleResponse = {
      validation_result: {
        transfer_id: transfer.transfer_id,
        data_completeness,
        required_fields,
        self_hosted,
        counterparty_verified,
      },
      rule_evaluation: {
        rules_triggered: evaluation.rules_triggered,
        should_alert: evaluation.should_alert,
        should_block: evaluation.should_block,
        // A counterparty is named when either casp field is given (that is what self_hosted means).
        actions: travelRuleActions(evaluation.results, !self_hosted && !counterparty_verified),
        triggered_rules: evaluation.results.filter((r) => r.triggered),
      },
    };
    const answer = { json: JSON.stringify(response), evaluationId: evaluation.evaluation_id };
    await cacheSet(key, cacheEntry(fingerprint, answer));
    return answer;
  }
}
export type TravelRuleService = ReturnType<typeof createTravelRuleService>;
