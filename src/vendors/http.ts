import type { Dispatcher } from 'undici';
import type { CallOutcome } from './breaker.ts';

/**
 * A vendor call that produced no usable answer; `outcome` is what it means to the breaker. The
 * message may be shown to the caller; `received` (the vendor's value that could not be read) is
 * for the server log only.
 */
export class VendorCallError extends Error {
  constructor(
    readonly vendor: string,
    message: string,
    readonly outcome: Exclude<CallOutcome, 'success'>,
    readonly received?: string,
  ) {
    super(`${vendor}: ${message}`);
  }
}

/** Vendor answers are small; anything larger is a broken or hostile endpoint. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface VendorCall {
  vendor: string;
  dispatcher: Dispatcher;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  notFoundIsNoData?: boolean;
}

/**
 * One HTTP call to a vendor, aborted after `timeoutMs` (connection, headers and body together).
 * Returns the parsed JSON, or NO_DATA for a 404 when the vendor uses it for "no data". Failures
 * (count against the breaker): network errors, timeouts, 5xx, 429, other non-2xx answers, bodies
 * that are not JSON or larger than MAX_BODY_BYTES. Neutral (the vendor is up but refused this
 * request): any other 4xx.
 *
 * Through undici's dispatch() with a handler of our own rather than request(): a screening makes
 * three of these, and request() wraps each answer in a stream and needs an AbortSignal (whose
 * listeners Node keeps in a long-lived set, see storage/in-flight.ts). Measured on the 2-core
 * machine against a local server, client and server CPU per call: 80 µs with request(), 48 µs.
 */
/**
 * A vendor's 404 "no data" (notFoundIsNoData): apart from any JSON a 200 may carry, a `null` body
 * included, which is an answer that cannot be read and so never clean.
 */
export const NO_DATA: unique symbol = Symbol('vendor has no data');

export function callVendor(call: VendorCall): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(call.url);
    } catch {
      return reject(failure(call, 'invalid vendor URL'));
    }
    call.dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.pathname + target.search,
        method: call.method,
        headers: {
          accept: 'application/json',
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...call.headers,
        },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
      },
      new VendorCallHandler(call, resolve, reject),
    );
  });
}

/**
 * Collects one call's answer and settles its promise once: with the answer's meaning when it is
 * complete, or with a failure on a network error, on the timeout, or past the size limit (then the
 * request is aborted). A class, so that a call creates one object and not a closure per callback.
 */
class VendorCallHandler implements Dispatcher.DispatchHandler {
  #settled = false;
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #size = 0;
  readonly #chunks: Buffer[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly call: VendorCall,
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (reason: unknown) => void,
  ) {
    this.#timer = setTimeout(() => this.#stop(`no answer within ${call.timeoutMs} ms`), call.timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Timed out while waiting for a connection: nothing more is wanted from this call.
    if (this.#settled) controller.abort(new Error('call abandoned'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.#status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#size += chunk.length;
    if (this.#size > MAX_BODY_BYTES) this.#stop('answer too large');
    // Only a 2xx body is read; others are drained and dropped.
    else if (this.#status >= 200 && this.#status < 300) this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settle()) return;
    const chunks = this.#chunks;
    try {
      this.resolve(
        interpret(this.call, this.#status, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)),
      );
    } catch (err) {
      this.reject(err);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.#settle()) return;
    this.reject(failure(this.call, `network error (${(err as { code?: string }).code ?? err.message})`));
  }

  /** Marks the call settled; true when it already was. */
  #settle(): boolean {
    if (this.#settled) return true;
    this.#settled = true;
    clearTimeout(this.#timer);
    return false;
  }

  #stop(message: string): void {
    if (this.#settle()) return;
    this.reject(failure(this.call, message));
    this.#controller?.abort(new Error(message));
  }
}

/** What a complete answer means: the rules of callVendor's comment, in order. */
function interpret(call: VendorCall, status: number, body: Buffer): unknown {
  if (status === 404 && call.notFoundIsNoData) return NO_DATA;
  if (status === 429 || status >= 500) throw failure(call, `HTTP ${status}`);
  if (status >= 400)
    throw new VendorCallError(call.vendor, `refused the request (HTTP ${status})`, 'neutral');
  if (status < 200 || status >= 300) throw failure(call, `unexpected HTTP ${status}`);
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw failure(call, 'answer is not JSON');
  }
}

/** A call that gave no usable answer and counts against the vendor's breaker. */
function failure(call: VendorCall, message: string): VendorCallError {
  return new VendorCallError(call.vendor, message, 'failure');
}

/** Joins a configured base URL and a path, whether or not the base ends with a slash. */
export function vendorUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
