import { type Dispatcher, request } from 'undici';
import type { CallOutcome } from './breaker.ts';

/** A vendor call that produced no usable answer; `outcome` is what it means to the breaker. */
export class VendorCallError extends Error {
  constructor(
    readonly vendor: string,
    message: string,
    readonly outcome: Exclude<CallOutcome, 'success'>,
  ) {
    super(`${vendor}: ${message}`);
  }
}

/** Vendor answers are small; anything larger is a broken or hostile endpoint. */
const MAX_BODY_CHARS = 4 * 1024 * 1024;

/**
 * One HTTP call to a vendor, aborted after `timeoutMs` (headers and body together). Returns the
 * parsed JSON, or null for a 404 when the vendor uses it for "no data". Failures (count against
 * the breaker): network errors, timeouts, 5xx, 429, other non-2xx answers, bodies that are not
 * JSON. Neutral (the vendor is up but refused this request): any other 4xx.
 */
export async function callVendor(opts: {
  vendor: string;
  dispatcher: Dispatcher;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  notFoundIsNoData?: boolean;
}): Promise<unknown> {
  // A timer and a controller, not AbortSignal.timeout(): Node keeps every timeout signal that has
  // an abort listener in one long-lived Set and deletes it again when the call is over, and a
  // long-lived Set with an entry added and deleted per call keeps every call's objects alive
  // across minor GCs (see storage/in-flight.ts).
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  try {
    return await callWithin(opts, controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** The call itself, aborted through `signal`. */
async function callWithin(opts: Parameters<typeof callVendor>[0], signal: AbortSignal): Promise<unknown> {
  const { vendor } = opts;
  const fail = (message: string) => new VendorCallError(vendor, message, 'failure');
  const describe = (err: unknown) =>
    signal.aborted
      ? `no answer within ${opts.timeoutMs} ms`
      : `network error (${(err as { code?: string }).code ?? (err as Error).message})`;
  let res: Dispatcher.ResponseData;
  try {
    res = await request(opts.url, {
      method: opts.method,
      headers: {
        accept: 'application/json',
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...opts.headers,
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal,
      dispatcher: opts.dispatcher,
    });
  } catch (err) {
    throw fail(describe(err));
  }
  const status = res.statusCode;
  let text: string;
  try {
    if (status < 200 || status >= 300) {
      await res.body.dump();
    } else {
      text = await res.body.text();
    }
  } catch (err) {
    throw fail(describe(err));
  }
  if (status === 404 && opts.notFoundIsNoData) return null;
  if (status === 429 || status >= 500) throw fail(`HTTP ${status}`);
  if (status >= 400) throw new VendorCallError(vendor, `refused the request (HTTP ${status})`, 'neutral');
  if (status < 200 || status >= 300) throw fail(`unexpected HTTP ${status}`);
  if (text!.length > MAX_BODY_CHARS) throw fail('answer too large');
  try {
    return JSON.parse(text!);
  } catch {
    throw fail('answer is not JSON');
  }
}

/** Joins a configured base URL and a path, whether or not the base ends with a slash. */
export function vendorUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
