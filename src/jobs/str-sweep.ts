import { systemActor } from '../domain/actor.ts';
import { clientCalendar, strFilingDeadline } from '../domain/cases/due-dates.ts';
import type { ClientContext, EvaluationService } from '../services/evaluation.service.ts';
import { type Environment, systemPrincipal } from '../services/keys.service.ts';
import type { StrCandidate, StrSweepRepo } from '../storage/str-sweep.repo.ts';

export const STR_SWEEP_EVALUATOR = 'system:str-sweep';
const RULE = 'MICA-RPT-002';
const PAGE = 200;

export interface StrSweepResult {
  job: 'str-sweep';
  at: string;
  /** Pending STR cases looked at. */
  checked: number;
  evaluated: Array<{ case_id: string; case_number: string; evaluation_id: string; alert: boolean }>;
  /**
   * Cases whose evaluation failed; they are left for the next run (released, or, when the database
   * is gone, taken up again once their claim expires).
   */
  failed: number;
}

/**
 * The STR sweep (CONTRACT §5): an STR case not closed as str_filed 2 business days (the client's
 * threshold, calendar and time zone) after creation gets MICA-RPT-002 evaluated once, through the
 * evaluation service, so it is audited like any evaluation and opens the alert its flags call for.
 *
 * It is a manual evaluation of that one rule: the periodic context would also evaluate the
 * governance rules, and with no governance facts given they would fail closed and raise alerts
 * that say nothing true.
 */
export function createStrSweep(deps: {
  repo: StrSweepRepo;
  clientContext: (clientId: string) => Promise<ClientContext | undefined>;
  evaluation: Pick<EvaluationService, 'evaluate'>;
  environment: Environment;
  now?: () => Date;
  onError?: (err: unknown, caseId: string) => void;
}) {
  const now = deps.now ?? (() => new Date());

  /**
   * What the sweep does with a case at `at`: nothing yet (its deadline has not passed, or its
   * client no longer runs the rule), settle it (closed as str_filed by the deadline), or evaluate
   * MICA-RPT-002: not closed as str_filed when the deadline passed, even if it was filed since
   * (a late filing is still a missed deadline, whether or not a sweep ran in between).
   */
  async function verdict(c: StrCandidate, at: Date): Promise<'wait' | 'filed' | 'due'> {
    const ctx = await deps.clientContext(c.client_id);
    if (!ctx) return 'wait';
    const cal = clientCalendar({
      timeZone: ctx.settings.time_zone,
      holidayCountry: ctx.settings.holiday_country,
    });
    const deadline = strFilingDeadline(
      new Date(c.created_at),
      cal,
      ctx.settings.thresholds.str_filing_business_days,
    );
    // Filed in time settles the case whatever the client's rules are now (read again every sweep
    // otherwise, for good, where MICA-RPT-002 is disabled).
    if (c.filed_at !== null && new Date(c.filed_at).getTime() <= deadline.getTime()) return 'filed';
    if (ctx.settings.disabled_rules.includes(RULE)) return 'wait';
    return at.getTime() > deadline.getTime() ? 'due' : 'wait';
  }

  async function evaluateCase(c: StrCandidate, result: StrSweepResult): Promise<void> {
    const createdAt = new Date(c.created_at).toISOString();
    try {
      // Evaluated by a sweep that failed after the commit (before marking the case): marked now,
      // not evaluated twice.
      if (await deps.repo.evaluated(c, STR_SWEEP_EVALUATOR)) {
        await deps.repo.done(c.id, undefined);
        return;
      }
      const { response } = await deps.evaluation.evaluate(
        systemPrincipal(c.client_id, deps.environment, 'str-sweep'),
        {
          client_id: c.client_id,
          trigger_type: 'manual',
          trigger_entity_type: c.customer_id ? 'customer' : 'governance',
          trigger_entity_id: c.case_number,
          data: {
            rule_ids: [RULE],
            str_detected_at: createdAt,
            str_filed: false,
            case_id: c.id,
            case_number: c.case_number,
            ...(c.customer_id ? { customer_id: c.customer_id } : {}),
          },
        },
        systemActor(STR_SWEEP_EVALUATOR),
        { caseId: c.id },
      );
      result.evaluated.push({
        case_id: c.id,
        case_number: c.case_number,
        evaluation_id: response.evaluation_id,
        alert: response.should_alert,
      });
      await deps.repo.done(c.id, {
        at: response.timestamp,
        actor: STR_SWEEP_EVALUATOR,
        note: `STR not filed within the deadline${c.filed_at ? ` (filed ${c.filed_at}, after it)` : ''}: ${RULE} evaluated (${response.evaluation_id})`,
      });
    } catch (err) {
      result.failed++;
      deps.onError?.(err, c.id);
      await deps.repo.release(c.id).catch((e) => deps.onError?.(e, c.id));
    }
  }

  return {
    /** One pass over every pending STR case; safe to run on several instances at once. */
    async run(): Promise<StrSweepResult> {
      const at = now();
      const result: StrSweepResult = {
        job: 'str-sweep',
        at: at.toISOString(),
        checked: 0,
        evaluated: [],
        failed: 0,
      };
      let after: { createdAt: string; id: string } | undefined;
      for (;;) {
        const page = await deps.repo.candidates(at, after, PAGE);
        if (page.length === 0) break;
        const last = page[page.length - 1]!;
        after = { createdAt: new Date(last.created_at).toISOString(), id: last.id };
        result.checked += page.length;
        const due: StrCandidate[] = [];
        const filed: string[] = [];
        for (const c of page) {
          const v = await verdict(c, at);
          if (v === 'due') due.push(c);
          else if (v === 'filed') filed.push(c.id);
        }
        // Filed in time: nothing to evaluate, and no need to look at them again.
        await deps.repo.settle(filed);
        // Stamped when claimed, not when the run began: a long run must not claim already expired.
        const claimed = new Set(
          await deps.repo.claim(
            due.map((c) => c.id),
            now(),
          ),
        );
        for (const c of due) if (claimed.has(c.id)) await evaluateCase(c, result);
        if (page.length < PAGE) break;
      }
      return result;
    },
  };
}
export type StrSweep = ReturnType<typeof createStrSweep>;
