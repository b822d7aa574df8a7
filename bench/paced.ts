import { writeFileSync } from 'node:fs';
import { Pool } from 'undici';
import { detached, EVALUATION_ID } from './payload.ts';

/**
 * Open-loop paced client: request i is due at start + i / rate, whatever happened to the earlier
 * ones (scheduled by target send time, not by completion). Every latency is kept, so the
 * percentiles are exact rather than bucketed.
 */

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

export interface PacedResult {
  rate: number;
  durationS: number;
  connections: number;
  /** Requests scheduled (rate × duration). */
  scheduled: number;
  /** Requests dispatched; fewer than scheduled when the run stopped on overload. */
  sent: number;
  /** Responses with a 2xx status. */
  ok: number;
  non2xx: number;
  errors: number;
  /**
   * Requests dispatched more than `lateMs` (default 2) after their due time. Node timers have 1 ms
   * granularity, so up to ~2 ms is the scheduler's resolution; beyond it the client's event loop or CPU was busy.
   */
  late: number;
  lateMs: number;
  /** Requests due while every pooled connection was busy (they waited in the client's queue). */
  queued: number;
  /** Delay between due time and dispatch, ms. */
  sendLag: { p99: number; max: number };
  /** Set when the backlog passed `maxBacklog`: the server could not keep up, the rest was not sent. */
  overloadedAtS?: number;
  maxBacklog: number;
  /** Achieved send rate, requests/s. */
  sentRate: number;
  /** Dispatch → full response body, ms. */
  latency: Percentiles;
  /** Due time → full response body, ms: includes the send lag (no coordinated omission). */
  fromSchedule: Percentiles;
  /** evaluation_id (or what `idOf` picks) of every 2xx answer, when asked for. */
  ids: string[];
}

export interface PacedOptions {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: () => string;
  rate: number;
  durationS: number;
  connections?: number;
  lateMs?: number;
  /** Stop sending once this many requests are outstanding (default: half a second's worth). */
  maxBacklog?: number;
  /** Stop sending once the oldest outstanding request is this old, ms (default 3000). */
  maxWaitMs?: number;
  collectIds?: boolean;
  /** HTTP method of every request (default POST; GET sends no body). */
  method?: 'GET' | 'POST';
  /**
   * Builds each request (path, extra headers, body, and a tag handed to `idOf`) instead of
   * `path`/`body`: for requests whose headers depend on the body (a webhook signature) or whose
   * path varies (a GET with a query string).
   */
  request?: () => PacedRequest;
  /** What to collect from a 2xx answer when `collectIds` is set (default: its evaluation_id). */
  idOf?: (text: string, tag: string | undefined) => string | undefined;
  /** Told of every answer: the request's tag, its latency (dispatch → last byte, ms) and status. */
  onAnswer?: (tag: string | undefined, latencyMs: number, status: number) => void;
}

/** One request of a paced run, built by `PacedOptions.request`. */
export interface PacedRequest {
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  tag?: string;
}

/** Exact percentiles of all samples (nearest rank); also used for the audit-scale query timings. */
export function percentiles(samples: ArrayLike<number>): Percentiles {
  const s = Float64Array.from(samples).sort();
  if (s.length === 0) return { p50: NaN, p90: NaN, p99: NaN, p999: NaN, max: NaN, mean: NaN };
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  let sum = 0;
  for (const v of s) sum += v;
  return {
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    p999: at(0.999),
    max: s[s.length - 1]!,
    mean: sum / s.length,
  };
}

/**
 * BENCH_PACED_TRACE=<prefix>: every paced run writes `<prefix>-<start, Unix ms>.csv`, one line per
 * answer: its dispatch time (Unix ms, fractional) and latency (ms). Lines up with the server's own
 * logs by wall clock: whether slow answers come alone or in clusters, and what the server was doing.
 */
function writeTrace(
  file: string,
  startEpochMs: number,
  sentMs: Float64Array,
  latency: Float64Array,
  n: number,
) {
  const lines = ['sent_unix_ms,latency_ms'];
  for (let i = 0; i < n; i++)
    lines.push(`${(startEpochMs + sentMs[i]!).toFixed(3)},${latency[i]!.toFixed(3)}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Sends `rate` requests per second for `durationS` seconds; resolves when every response is in. */
export async function runPaced(opts: PacedOptions): Promise<PacedResult> {
  const connections = opts.connections ?? 64;
  const lateMs = opts.lateMs ?? 2;
  const maxBacklog = opts.maxBacklog ?? Math.max(1, Math.round(opts.rate / 2));
  const maxWaitNs = (opts.maxWaitMs ?? 3000) * 1e6;
  const total = Math.round(opts.rate * opts.durationS);
  const intervalNs = 1e9 / opts.rate;
  const pool = new Pool(opts.origin, {
    connections,
    pipelining: 1,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const latency = new Float64Array(total);
  const fromSchedule = new Float64Array(total);
  const lag = new Float64Array(total);
  // Dispatch time of each request (ns since start) and whether it is answered: gives the oldest outstanding.
  const sentNs = new Float64Array(total);
  const answered = new Uint8Array(total);
  let oldest = 0;
  const ids: string[] = [];
  let recorded = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let late = 0;
  let queued = 0;
  let inFlight = 0;
  let next = 0;
  let stopAt = total;
  let overloadedAtS: number | undefined;
  let lastSend = 0n;

  // Open the first connections before the clock starts, so that the window begins with a warm pool.
  await Promise.all(
    Array.from({ length: Math.min(connections, 16) }, () =>
      pool.request({ path: '/healthz', method: 'GET' }).then((r) => r.body.dump()),
    ),
  );

  // Dispatch time of each answer (ms since start), in the order of `latency`, for BENCH_PACED_TRACE.
  const answeredSentMs = new Float64Array(total);
  const startEpochMs = performance.timeOrigin + performance.now();
  const start = process.hrtime.bigint();
  await new Promise<void>((resolveAll) => {
    const finishIfDone = () => {
      if (next >= stopAt && inFlight === 0) resolveAll();
    };

    const send = (index: number, dueNs: number) => {
      const sentAt = process.hrtime.bigint();
      lastSend = sentAt;
      sentNs[index] = Number(sentAt - start);
      inFlight++;
      const method = opts.method ?? 'POST';
      const built: PacedRequest = opts.request
        ? opts.request()
        : { body: method === 'GET' ? undefined : opts.body() };
      pool
        .request({
          path: built.path ?? opts.path,
          method,
          headers: built.headers ? { ...opts.headers, ...built.headers } : opts.headers,
          body: built.body,
        })
        .then(async (res) => {
          const text = await res.body.text();
          const end = process.hrtime.bigint();
          latency[recorded] = Number(end - sentAt) / 1e6;
          answeredSentMs[recorded] = Number(sentAt - start) / 1e6;
          opts.onAnswer?.(built.tag, latency[recorded]!, res.statusCode);
          fromSchedule[recorded] = (Number(end - start) - dueNs) / 1e6;
          recorded++;
          if (res.statusCode >= 200 && res.statusCode < 300) {
            ok++;
            if (opts.collectIds) {
              const id = opts.idOf ? opts.idOf(text, built.tag) : EVALUATION_ID.exec(text)?.[1];
              if (id !== undefined) ids.push(detached(id));
            }
          } else non2xx++;
        })
        .catch(() => {
          errors++;
        })
        .finally(() => {
          inFlight--;
          answered[index] = 1;
          while (oldest < next && answered[oldest]) oldest++;
          finishIfDone();
        });
    };

    const tick = () => {
      while (next < stopAt && next * intervalNs <= Number(process.hrtime.bigint() - start)) {
        const nowNs = Number(process.hrtime.bigint() - start);
        if (inFlight >= maxBacklog || (oldest < next && nowNs - sentNs[oldest]! > maxWaitNs)) {
          // The server is not keeping up: a longer run would only grow the queue until timeouts.
          overloadedAtS = nowNs / 1e9;
          stopAt = next;
          break;
        }
        const due = next * intervalNs;
        const lagMs = (Number(process.hrtime.bigint() - start) - due) / 1e6;
        lag[next] = lagMs;
        if (lagMs > lateMs) late++;
        if (inFlight >= connections) queued++;
        send(next, due);
        next++;
      }
      if (next < stopAt) {
        const wait = (next * intervalNs - Number(process.hrtime.bigint() - start)) / 1e6;
        setTimeout(tick, Math.max(0, Math.floor(wait)));
      } else finishIfDone();
    };
    tick();
  });
  const trace = process.env.BENCH_PACED_TRACE;
  if (trace)
    writeTrace(`${trace}-${Math.round(startEpochMs)}.csv`, startEpochMs, answeredSentMs, latency, recorded);
  const sendSpanS = Number(lastSend - start) / 1e9;
  await pool.close();
  const lags = percentiles(lag.subarray(0, next));

  return {
    rate: opts.rate,
    durationS: opts.durationS,
    connections,
    scheduled: total,
    sent: next,
    ok,
    non2xx,
    errors,
    late,
    lateMs,
    queued,
    sendLag: { p99: lags.p99, max: lags.max },
    overloadedAtS,
    maxBacklog,
    sentRate: sendSpanS > 0 ? (next - 1) / sendSpanS : NaN,
    latency: percentiles(latency.subarray(0, recorded)),
    fromSchedule: percentiles(fromSchedule.subarray(0, recorded)),
    ids,
  };
}

/**
 * Standalone use against a running server:
 * `BENCH_KEY=mica_live_… BENCH_CLIENT=demo node --import tsx bench/paced.ts http://127.0.0.1:8080 1000 10`
 */
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [origin = 'http://127.0.0.1:8080', rate = '1000', seconds = '10'] = process.argv.slice(2);
  const { transactionBody } = await import('./payload.ts');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (process.env.BENCH_KEY) headers.authorization = `Bearer ${process.env.BENCH_KEY}`;
  const { ids, ...result } = await runPaced({
    origin,
    path: '/api/mica/evaluate',
    headers,
    body: () => transactionBody(process.env.BENCH_CLIENT ?? 'demo'),
    rate: Number(rate),
    durationS: Number(seconds),
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
