import type { Cache } from '../cache/cache.port.ts';
import { tolerantCache } from '../cache/tolerant-cache.ts';
import type { Actor } from '../domain/actor.ts';
import type { RuleResult } from '../domain/rules/types.ts';
import {
  type AddressMatch,
  type Chain,
  combineRisk,
  DEFAULT_NAME_THRESHOLD,
  type NameMatch,
  type RiskPart,
  riskCategory,
  screeningActions,
  validateAddress,
} from '../domain/screening/index.ts';
import { AppError, validationError } from '../errors.ts';
import {
  BreakerOpenError,
  type VendorFailedError,
  type VendorOutcome,
  type Vendors,
} from '../vendors/index.ts';
import { CACHE_TTL_SECONDS, rulesFingerprint, walletCacheKey } from './cache-keys.ts';
import type { CacheStatsService } from './cache-stats.service.ts';
import { answerOfEntry, cacheEntry, type EvaluatedAnswer } from './evaluated-answer.ts';
import type { ClientContext, EvaluationService } from './evaluation.service.ts';
import type { Principal } from './keys.service.ts';
import type { HeldLists, SanctionsListsService } from './sanctions-lists.service.ts';
import { createSingleFlight } from './single-flight.ts';

/** A screening request after schema validation (GET query or POST body). */
export interface ScreeningRequest {
  wallet_address: string;
  blockchain: Chain;
  transaction_amount_eur?: number;
  originator_name?: string;
  beneficiary_name?: string;
  /** Extension (POST): the wallet is self-hosted, and whether its ownership is proven (WAL-004). */
  self_hosted_wallet?: boolean;
  ownership_verified?: boolean;
}

/** CONTRACT §7 extension: what matched a held list. */
export interface SanctionsMatch {
  list: string;
  entry_id: string;
  name: string;
  programs: string[];
  matched: 'address' | 'name';
  score: number;
}

/** Most name matches reported: a common name can resemble many listed parties. */
const MAX_NAME_MATCHES = 10;

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * An exposure as answered, to 6 decimals, but never 0 when there is any: the rules read these
 * figures (any sanctioned exposure blocks, WAL-001), and a trace under 5·10⁻⁷ rounded to 0 would
 * pass unblocked while the category says critical.
 */
const exposure = (x: number) => (x > 0 ? Math.max(round(x, 6), 0.000001) : 0);

function addressMatch(m: AddressMatch): SanctionsMatch {
  return {
    list: m.list,
    entry_id: m.entry_id,
    name: m.name,
    programs: m.programs,
    matched: 'address',
    score: 1,
  };
}

function nameMatch(m: NameMatch): SanctionsMatch {
  const score = round(m.score, 4);
  return { list: m.list, entry_id: m.entry_id, name: m.name, programs: m.programs, matched: 'name', score };
}

/** A held-list hit: the address itself is designated. */
const LIST_HIT: RiskPart = {
  score: 100,
  sanctioned: 1,
  darknet: 0,
  mixer: 0,
  last_activity_at: null,
  sanctions_hit: true,
};

/** The vendors' part of a screening: the views given, and the vendors whose view is missing. */
interface VendorViews {
  parts: RiskPart[];
  missing: string[];
}

/**
 * Wallet screening (CONTRACT §7): cache → held sanctions lists and vendors behind their breakers,
 * combined (the worst wins) → names → the wallet_screen rules through the evaluation service (so
 * it is audited like any evaluation). Only the audit write and the vendor calls leave the process
 * on the way.
 */
export function createScreeningService(deps: {
  lists: Pick<SanctionsListsService, 'current'>;
  vendors: Pick<Vendors, 'names' | 'screenEach' | 'breakers'>;
  evaluation: Pick<EvaluationService, 'evaluate'>;
  clientContext: (clientId: string) => Promise<ClientContext | undefined>;
  cache: Pick<Cache, 'get' | 'set'>;
  stats: Pick<CacheStatsService, 'record'>;
  onCacheError?: (err: unknown) => void;
  /** Told of every failed vendor call, with the value it could not read (for the log only). */
  onVendorFailure?: (err: VendorFailedError) => void;
}) {
  const ttl = CACHE_TTL_SECONDS.wallet_screening;
  const retryAfter = Math.ceil(deps.vendors.breakers.options.recoveryMs / 1000);

  function unavailable(vendor: string, state: string, reason: string): AppError {
    return new AppError(
      'SERVICE_UNAVAILABLE',
      `Vendor ${vendor} is unavailable (${reason})`,
      { vendor, breaker_state: state, retry_after: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }

  const { get: cacheGet, set: cacheSet } = tolerantCache(deps.cache, ttl, deps.onCacheError);
  const flights = createSingleFlight<EvaluatedAnswer>();

  /**
   * The vendors' views of an address, every configured vendor asked (also for an address a held
   * list names: their exposures and activity belong in its profile too). A vendor call that fails,
   * or a breaker that refuses, fails the screening (503 VENDOR, CONTRACT §7), except for a listed
   * address (`listHit`): its answer does not depend on the vendors (BLOCK, critical, sanctioned 1
   * whatever they say), so it is given from the lists and the vendors that did answer, and the
   * missing ones are named. Each call is bounded by the vendor timeout, and counted once by its
   * breaker either way.
   */
  async function vendorViews(req: ScreeningRequest, listHit: boolean): Promise<VendorViews> {
    if (deps.vendors.names.length === 0) return { parts: [], missing: [] };
    let outcomes: VendorOutcome[];
    try {
      outcomes = await deps.vendors.screenEach(req.wallet_address, req.blockchain);
    } catch (err) {
      if (!(err instanceof BreakerOpenError)) throw err;
      // The breakers admit all vendors or none: an OPEN one means none was asked.
      if (listHit) return { parts: [], missing: [...deps.vendors.names] };
      throw unavailable(err.vendor, err.state, `circuit breaker ${err.state}`);
    }
    const views: VendorViews = { parts: [], missing: [] };
    let failed: VendorFailedError | undefined;
    for (const o of outcomes) {
      if (o.ok) {
        views.parts.push(o.risk);
        continue;
      }
      deps.onVendorFailure?.(o.error);
      failed ??= o.error;
      views.missing.push(o.vendor);
    }
    if (failed && !listHit) throw unavailable(failed.vendor, failed.state, failed.message);
    return views;
  }

  return {
    /**
     * Screens a wallet for the caller; returns the response as JSON text (cached or new) and the
     * evaluation it comes from (for a cached or shared answer, the one that produced it).
     */
    async screen(principal: Principal, req: ScreeningRequest, by?: Actor): Promise<EvaluatedAnswer> {
      const valid = validateAddress(req.blockchain, req.wallet_address);
      if (!valid.ok) throw validationError([`wallet_address: ${valid.reason}`]);
      const names = [req.originator_name, req.beneficiary_name].filter(
        (n): n is string => typeof n === 'string' && n.trim() !== '',
      );
      const lists = await deps.lists.current();

      // Names and the ownership facts change the answer, so a request with them is neither served
      // from nor stored in the cache; the amount does not. The list versions and the vendors in use
      // fingerprint an entry: after an import (or a change of vendors) the old entry is a miss; so
      // does the client's rule-set version (a changed threshold is a miss too).
      const cacheable =
        names.length === 0 && req.self_hosted_wallet === undefined && req.ownership_verified === undefined;
      const ctx = await deps.clientContext(principal.clientId);
      const key = walletCacheKey(principal.clientId, req.wallet_address, req.blockchain);
      const fingerprint = `lists=${lists.tag};vendors=${deps.vendors.names.join(',')};${rulesFingerprint(ctx?.settings)}`;
      if (!cacheable) return screenUncached(principal, req, by, lists, ctx, names, undefined);
      const cached = answerOfEntry(await cacheGet(key), fingerprint);
      // The address is echoed as given, and one key serves every casing of an EVM or bech32 address.
      if (cached) {
        deps.stats.record(principal.clientId, 'wallet_screening', true);
        return withAddress(cached, req.wallet_address);
      }
      // The same wallet asked at the same moment is screened once, as it would be one after the other.
      let shared = false;
      try {
        const flight = await flights.run(`${key}\n${fingerprint}`, () =>
          screenUncached(principal, req, by, lists, ctx, names, fingerprint),
        );
        shared = flight.shared;
        return shared ? withAddress(flight.value, req.wallet_address) : flight.value;
      } finally {
        deps.stats.record(principal.clientId, 'wallet_screening', shared);
      }
    },
  };

  /** A screening that is not in the cache; `fingerprint`: what a complete answer is cached under. */
  async function screenUncached(
    principal: Principal,
    req: ScreeningRequest,
    by: Actor | undefined,
    lists: HeldLists,
    ctx: ClientContext | undefined,
    names: string[],
    fingerprint: string | undefined,
  ): Promise<EvaluatedAnswer> {
    const key = walletCacheKey(principal.clientId, req.wallet_address, req.blockchain);
    const addressHits = lists.addresses.lookup(req.blockchain, req.wallet_address);
    // The lists and the vendors are combined (CONTRACT §7), a listed address included. A listed
    // address is never answered 503: without a vendor's part its answer is still the block, but
    // it is incomplete (that vendor's exposures and activity are missing), so it is not cached and
    // its audit record names the missing vendors (see README, "Failures and breakers").
    const listHit = addressHits.length > 0;
    const { parts, missing } = await vendorViews(req, listHit);
    const risk = combineRisk([...(listHit ? [LIST_HIT] : []), ...parts]);

    const matches = addressHits.map(addressMatch);
    let nameScore: number | undefined;
    if (names.length > 0) {
      const threshold = ctx?.settings.thresholds.name_match_score ?? DEFAULT_NAME_THRESHOLD;
      const found = names
        .flatMap((n) => lists.names.search(n, threshold))
        .sort((a, b) => b.score - a.score)
        .filter((m, i, all) => all.findIndex((o) => o.list === m.list && o.entry_id === m.entry_id) === i)
        .slice(0, MAX_NAME_MATCHES);
      // Below the threshold the score is reported as 0: "no potential match".
      nameScore = found.length > 0 ? round(found[0]!.score, 4) : 0;
      matches.push(...found.map(nameMatch));
    }

    const riskScore = round(risk.score, 2);
    // Any sanctioned exposure blocks (WAL-001), so it is a sanctions hit for the category too.
    const category = riskCategory(riskScore, risk.sanctions_hit || risk.sanctioned > 0);
    const profile = {
      wallet_address: req.wallet_address,
      blockchain: req.blockchain,
      risk_score: riskScore,
      risk_category: category,
      sanctioned_exposure: exposure(risk.sanctioned),
      darknet_exposure: exposure(risk.darknet),
      mixer_exposure: exposure(risk.mixer),
      last_activity_at: risk.last_activity_at,
      sanctions_matches: matches,
    };
    const { response: evaluation } = await deps.evaluation.evaluate(
      principal,
      {
        client_id: principal.clientId,
        trigger_type: 'wallet_screen',
        trigger_entity_type: 'wallet',
        trigger_entity_id: req.wallet_address,
        data: {
          wallet_address: req.wallet_address,
          blockchain: req.blockchain,
          wallet_risk_score: riskScore,
          wallet_risk_level: category,
          associated_sanctions: profile.sanctioned_exposure > 0,
          associated_darknet: profile.darknet_exposure > 0,
          ...(nameScore === undefined ? {} : { name_match_score: nameScore }),
          // Kept in the audit record: what the decision was based on.
          mixer_exposure: profile.mixer_exposure,
          sanctions_matches: matches,
          sanctions_lists: lists.tag,
          vendors: deps.vendors.names,
          // The record says which vendors' views the decision lacks (a listed address only).
          ...(missing.length > 0 ? { vendors_incomplete: missing } : {}),
          ...pick(req, [
            'transaction_amount_eur',
            'originator_name',
            'beneficiary_name',
            'self_hosted_wallet',
            'ownership_verified',
          ]),
        },
      },
      by,
    );
    const answer = {
      json: JSON.stringify({
        risk_profile: profile,
        rule_evaluation: ruleEvaluation(evaluation.results, evaluation),
      }),
      evaluationId: evaluation.evaluation_id,
    };
    // Only a complete answer is cached: the next request asks the missing vendors again.
    if (fingerprint !== undefined && missing.length === 0)
      await cacheSet(key, cacheEntry(fingerprint, answer));
    return answer;
  }
}
export type ScreeningService = ReturnType<typeof createScreeningService>;

function ruleEvaluation(
  results: RuleResult[],
  summary: { rules_triggered: number; should_alert: boolean; should_block: boolean },
) {
  return {
    rules_triggered: summary.rules_triggered,
    should_alert: summary.should_alert,
    should_block: summary.should_block,
    actions: screeningActions(results),
    triggered_rules: results.filter((r) => r.triggered),
  };
}

function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** The cached answer with the caller's spelling of the address (the entry may come from another casing). */
function withAddress(answer: EvaluatedAnswer, address: string): EvaluatedAnswer {
  const { json } = answer;
  const prefix = '{"risk_profile":{"wallet_address":';
  if (!json.startsWith(prefix)) return answer;
  const end = json.indexOf(',"blockchain":', prefix.length);
  return end < 0 ? answer : { ...answer, json: prefix + JSON.stringify(address) + json.slice(end) };
}
