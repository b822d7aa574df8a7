// The console's only door to the service: same-origin fetches carrying the officer's API key.
// The key lives in sessionStorage (gone when the tab closes), never in localStorage or a cookie.

const KEY_SLOT = 'mica.console.key';
// A random id of the sign-in (not the key), which the router writes into the history entries it visits.
const SESSION_SLOT = 'mica.console.session';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_SLOT);
}

/** The id of the sign-in the stored key belongs to (null when signed out). */
export function storedSession(): string | null {
  return storedKey() === null ? null : sessionStorage.getItem(SESSION_SLOT);
}

/** Keeps the key of a new sign-in, with a new sign-in id. */
export function storeKey(key: string): void {
  // getRandomValues, not randomUUID: the console may be served over plain http to a non-local host.
  const id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0'));
  sessionStorage.setItem(SESSION_SLOT, id.join(''));
  sessionStorage.setItem(KEY_SLOT, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY_SLOT);
  sessionStorage.removeItem(SESSION_SLOT);
}

/** An error answer of the API (nested format), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: { errors?: string[]; allowed?: string[]; [k: string]: unknown },
  ) {
    super(message);
  }
}

let onUnauthorized: () => void = () => {};

/** What to do when the key stops working (revoked, expired): back to sign-in. */
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

async function request(path: string, init: RequestInit = {}, key = storedKey()): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      ...init,
      headers: { ...headers, ...(init.headers as Record<string, string>) },
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The service cannot be reached. Check your connection and retry.');
  }
  if (res.ok) return res;
  let body: { error?: { code?: string; message?: string; details?: ApiError['details'] } } | null = {};
  try {
    body = await res.json();
  } catch {
    /* not JSON: the status says enough */
  }
  // Whatever JSON came (null, a string, a proxy's own shape): only the service's error object counts.
  const error =
    body !== null && typeof body === 'object' && typeof body.error === 'object' ? body.error : null;
  const err = new ApiError(
    res.status,
    typeof error?.code === 'string' ? error.code : `HTTP_${res.status}`,
    typeof error?.message === 'string' ? error.message : `The service answered ${res.status}`,
    detailsOf(error?.details),
  );
  if (res.status === 401 && key === storedKey()) onUnauthorized();
  throw err;
}

/** JSON.rawJSON (ES2025; Chromium 114+, Firefox 135+), which TypeScript's ES2022 lib does not know. */
const rawJson = (JSON as { rawJSON?: (text: string) => unknown }).rawJSON;

/**
 * Parses an answer keeping every number exactly as the service sent it. A vendor's payload is shown
 * as it arrived (the API serves it byte for byte), and a plain parse would round what a double cannot
 * hold (an account number 1234567890123456789 read as …800, 1e400 as null): such a number is kept as
 * its source text, which JSON.stringify writes back unchanged. Browsers without source access (the
 * reviver's third argument) parse as before.
 */
export function parseExact(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => {
    if (typeof value !== 'number' || !rawJson || context?.source === undefined) return value;
    return String(value) === context.source ? value : rawJson(context.source);
  });
}

export async function getJson<T>(path: string, key?: string): Promise<T> {
  return parseExact(await (await request(path, {}, key)).text()) as T;
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return postJsonText<T>(path, JSON.stringify(body));
}

/** Posts JSON text as it is: numbers a double cannot hold go out digit for digit, as typed. */
export async function postJsonText<T>(path: string, text: string): Promise<T> {
  return parseExact(await (await request(path, { method: 'POST', body: text })).text()) as T;
}

/** Fetches an export with the key and hands it to the browser as a file download. */
export async function download(path: string, fallbackName: string): Promise<void> {
  const res = await request(path);
  const blob = await res.blob();
  const disposition = res.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A query string from the defined, non-empty values. */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** `url` with one more query parameter, whether or not it already carries a query. */
export function withParam(url: string, name: string, value: string | number): string {
  return `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(String(value))}`;
}

// Shapes of the API (CONTRACT §5, §9 and the console endpoints).

export interface HistoryEntry {
  at: string;
  actor: string;
  actor_name: string | null;
  from: string | null;
  to: string;
  note: string | null;
}

export interface Alert {
  id: string;
  status: string;
  resolution: string | null;
  severity: string;
  source: string;
  event: string | null;
  vendor_object_id: string | null;
  customer_id: string | null;
  transaction_id: string | null;
  evaluation_id: string | null;
  case_id: string | null;
  due_at: string;
  overdue: boolean;
  created_at: string;
  updated_at: string;
  payload: unknown;
  history: HistoryEntry[];
}

export interface Case {
  id: string;
  case_number: string;
  status: string;
  resolution: string | null;
  reason: string;
  assignee: string | null;
  rule_ids: string[];
  alert_ids: string[];
  evaluation_id: string | null;
  due_at: string;
  overdue: boolean;
  created_at: string;
  updated_at: string;
  history: HistoryEntry[];
  severity?: string | null;
}

/** A case page in one answer (GET /api/console/cases/{id}): at most 100 alerts, the rest counted. */
export interface CasePage {
  case: Case;
  alerts: Alert[];
  alerts_total: number;
  alerts_not_shown: number;
  evaluations: EvaluationResponse[];
  rule_articles: Record<string, number>;
}

/** What escalating an alert can do (GET /api/console/alerts/{id}/escalation). */
export interface EscalationTargets {
  alert_id: string;
  status: string;
  case: { id: string; case_number: string; status: string; open: boolean } | null;
  open_cases: Array<{
    id: string;
    case_number: string;
    status: string;
    assignee: string | null;
    reason: string;
    due_at: string;
  }>;
  open_cases_not_shown: number;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface WhoAmI {
  client_id: string;
  client_name: string;
  key_id: string;
  role: string;
  environment: string;
  sandbox: boolean;
  officer: string | null;
  officers: string[];
  time_zone: string;
}

export interface QueueCounts {
  open: number;
  overdue: number;
  due_today: number;
}

export interface Counts {
  as_of: string;
  time_zone: string;
  alerts: QueueCounts;
  cases: QueueCounts;
}

export interface RuleResult {
  rule_id: string;
  rule_name: string;
  triggered: boolean;
  result: string;
  conditions_met: Record<string, unknown>;
  actions_to_execute: string[];
  severity: string;
}

export interface EvaluationResponse {
  rules_evaluated: number;
  rules_triggered: number;
  evaluation_id: string;
  timestamp: string;
  results: RuleResult[];
  highest_severity: string | null;
  actions_required: string[];
  should_block: boolean;
  should_alert: boolean;
  should_create_case: boolean;
}

export interface EvaluationRecord {
  evaluation_id: string;
  evaluated_at: string;
  evaluator_id: string;
  rule_set_version: string;
  high_risk_list_date: string | null;
  request: unknown;
  response: EvaluationResponse;
}

export interface CatalogueRule {
  id: string;
  name: string;
  article: number | string;
  contexts: string[];
  result: string;
  severity: string;
  actions: string[];
  conditions: string[];
  enabled: boolean;
  thresholds: Record<string, unknown>;
  high_risk_countries?: { source: string; date: string; codes: string[] };
}

export interface RuleStats {
  from: string;
  to: string;
  days: string[];
  rules: Array<{
    rule_id: string;
    name: string;
    evaluations: number[];
    triggers: number[];
    total_evaluations: number;
    total_triggers: number;
  }>;
}

export interface AuditRow {
  client_id: string;
  evaluation_id: string;
  rule_id: string;
  result: string;
  trigger_type: string;
  trigger_entity_type: string | null;
  trigger_entity_id: string | null;
  evaluated_at: string;
  transaction_blocked: boolean;
  alert_generated: boolean;
  conditions_met: Record<string, unknown>;
  actions_executed: string[];
  severity: string;
  evaluator_id: string;
  customer_id: string | null;
}

export interface TransitionRow {
  at: string;
  kind: string;
  item_id: string;
  case_id: string | null;
  case_number: string | null;
  actor: string;
  actor_name: string | null;
  from: string | null;
  to: string;
  note: string | null;
  resolution: string | null;
}

/** An error's details as the screens read them: `errors` and `allowed` only as lists of texts. */
function detailsOf(details: unknown): ApiError['details'] {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return undefined;
  const d = details as Record<string, unknown>;
  const texts = (v: unknown) => (Array.isArray(v) && v.every((e) => typeof e === 'string') ? v : undefined);
  return { ...d, errors: texts(d.errors), allowed: texts(d.allowed) } as ApiError['details'];
}
