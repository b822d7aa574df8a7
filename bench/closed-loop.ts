import autocannon from 'autocannon';
import { detached, EVALUATION_ID } from './payload.ts';

/** What the closed-loop run reports: autocannon's own numbers, latency in ms (1 ms resolution). */
export interface ClosedLoopResult {
  connections: number;
  durationS: number;
  /** Mean of the per-second request counts. */
  reqPerSec: number;
  total: number;
  /** Requests written, including those still in flight when the duration ended (never answered). */
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Count of each status code answered. */
  statusCodes: Record<string, number>;
  latency: { p50: number; p97_5: number; p99: number; max: number; mean: number };
}

export interface ClosedLoopOptions {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: () => string;
  connections: number;
  durationS: number;
  /** Builds each request's extra headers and body instead of `body` (e.g. a signature over the body). */
  request?: () => { headers?: Record<string, string>; body: string };
  /** What to collect from a 2xx answer (default: its evaluation_id). */
  idOf?: (text: string) => string | undefined;
}

/** The result plus the evaluation_id of every 2xx answer (collected for every target alike). */
export type ClosedLoopRun = ClosedLoopResult & { ids: string[] };

/**
 * Closed loop: each of N connections sends its next request as soon as the previous answer is in,
 * so the server is kept saturated and the latency includes waiting behind the other connections.
 * Every request gets a fresh body (new transaction id, random customer and amount).
 */
export async function runClosedLoop(opts: ClosedLoopOptions): Promise<ClosedLoopRun> {
  const ids: string[] = [];
  const r = await autocannon({
    url: opts.origin,
    connections: opts.connections,
    duration: opts.durationS,
    pipelining: 1,
    timeout: 10,
    headers: opts.headers,
    requests: [
      {
        method: 'POST',
        path: opts.path,
        setupRequest: (req) => {
          if (!opts.request) return { ...req, body: opts.body() };
          const built = opts.request();
          return { ...req, headers: { ...req.headers, ...built.headers }, body: built.body };
        },
        // autocannon buffers every body anyway; this only picks the id out of it.
        onResponse: (status, body) => {
          if (status < 200 || status >= 300) return;
          const id = opts.idOf ? opts.idOf(body) : EVALUATION_ID.exec(body)?.[1];
          if (id !== undefined) ids.push(detached(id));
        },
      },
    ],
  });
  return {
    connections: opts.connections,
    durationS: r.duration,
    reqPerSec: r.requests.average,
    total: r.requests.total,
    sent: r.requests.sent,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count ?? 0]),
    ),
    ids,
    latency: {
      p50: r.latency.p50,
      p97_5: r.latency.p97_5,
      p99: r.latency.p99,
      max: r.latency.max,
      mean: r.latency.mean,
    },
  };
}
