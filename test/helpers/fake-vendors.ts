import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './harness.ts';
import { clientWithKey, startTestApp } from './harness.ts';
import { type Screening, screenGet, uniqueClient } from './screening.ts';

/** How a fake vendor behaves: answer, fail in one of the ways a real one does, or hang. */
export type VendorMode =
  | 'ok'
  | 'error500'
  | 'ratelimit'
  | 'notfound'
  | 'refuse401'
  | 'garbage'
  | 'hang'
  | 'reset';

export interface VendorCall {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  address: string;
}

export interface FakeVendor {
  /** Base URL with a unique path prefix, so a breaker shared through Redis is this run's own. */
  url: string;
  mode: VendorMode;
  calls: VendorCall[];
  /** Answer bodies per address; others get the vendor's clean answer. */
  answers: Map<string, unknown>;
  /** How long every answer waits before it is sent, ms (0: at once). For the vendor benchmark. */
  delayMs: number;
  /** Keep the calls in `calls` (a long benchmark turns it off). */
  record: boolean;
  /** Told of each answered call: arrival → answer written, ms, and the address it was about. */
  onServed?: (ms: number, address: string) => void;
  close(): Promise<void>;
}

type Kind = 'vendor_a' | 'vendor_b' | 'vendor_c';

function addressOf(kind: Kind, path: string, body: unknown): string {
  if (kind === 'vendor_a') return decodeURIComponent(path.split('/').pop() ?? '');
  if (kind === 'vendor_b') return (body as Array<{ address: string }>)[0]?.address ?? '';
  return (body as { subject: { hash: string } }).subject.hash;
}

function cleanAnswer(kind: Kind, body: unknown): unknown {
  if (kind === 'vendor_a') return { identifications: [] };
  if (kind === 'vendor_b')
    return (body as Array<{ address: string; chain: string }>).map((x) => ({
      address: x.address,
      chain: x.chain,
      addressRiskIndicators: [],
      entities: [],
    }));
  return { risk_score: null, evaluation_detail: { source: [], destination: [] } };
}

/** A vendor API on 127.0.0.1 speaking the protocol of CONTRACT §7, started by the test. */
export async function startFakeVendor(kind: Kind): Promise<FakeVendor> {
  const prefix = `/${randomUUID()}`;
  const vendor: FakeVendor = {
    url: '',
    mode: 'ok',
    calls: [],
    answers: new Map(),
    delayMs: 0,
    record: true,
    close: async () => {},
  };
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const arrived = performance.now();
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const path = (req.url ?? '').slice(prefix.length);
      const body = raw ? JSON.parse(raw) : undefined;
      const address = addressOf(kind, path, body);
      if (vendor.record)
        vendor.calls.push({ method: req.method ?? '', path, headers: req.headers, body, address });
      const write = (status: number, payload: string) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(payload);
        vendor.onServed?.(performance.now() - arrived, address);
      };
      const send = (status: number, payload: string) =>
        vendor.delayMs > 0
          ? void setTimeout(() => write(status, payload), vendor.delayMs)
          : write(status, payload);
      switch (vendor.mode) {
        case 'error500':
          return send(500, '{"error":"internal"}');
        case 'ratelimit':
          return send(429, '{"error":"slow down"}');
        case 'notfound':
          return send(404, '{"error":"not found"}');
        case 'refuse401':
          return send(401, '{"error":"bad key"}');
        case 'garbage':
          return send(200, '<html>maintenance</html>');
        case 'reset':
          return req.socket.destroy();
        case 'hang':
          hanging.add(res);
          return;
        default:
          // An answer set for the address, `null` included (a 200 whose body is JSON null).
          return send(
            200,
            JSON.stringify(
              vendor.answers.has(address) ? vendor.answers.get(address) : cleanAnswer(kind, body),
            ),
          );
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  vendor.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  vendor.close = () =>
    new Promise<void>((r) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => r());
    });
  return vendor;
}

/** The app with all three vendors faked, and a client with a standard and an admin key. */
export async function startVendorApp(env: Record<string, string> = {}) {
  const [a, b, c] = await Promise.all([
    startFakeVendor('vendor_a'),
    startFakeVendor('vendor_b'),
    startFakeVendor('vendor_c'),
  ]);
  const t = await startTestApp({
    VENDOR_A_URL: a.url,
    VENDOR_A_KEY: 'key-a',
    VENDOR_B_URL: b.url,
    VENDOR_B_KEY: 'key-b',
    VENDOR_C_URL: c.url,
    VENDOR_C_KEY: 'key-c',
    ...env,
  });
  const client = uniqueClient('vendors');
  const { auth } = await clientWithKey(t, client);
  const { auth: admin } = await clientWithKey(t, client, { role: 'admin' });
  return {
    t,
    a,
    b,
    c,
    auth,
    admin,
    /** Back to answering, with no calls recorded. */
    reset() {
      for (const v of [a, b, c]) {
        v.mode = 'ok';
        v.calls.length = 0;
      }
    },
    calls: () => a.calls.length + b.calls.length + c.calls.length,
    async close() {
      await t.close();
      await Promise.all([a.close(), b.close(), c.close()]);
    },
  };
}
export type VendorApp = Awaited<ReturnType<typeof startVendorApp>>;

// Distinct valid addresses, so that each request misses the cache unless a test wants a hit.
let seq = 0x1000 + Math.floor(Math.random() * 0xffff) * 0x10000;
/** A valid EVM address not used before in this process. */
export const freshEvm = () => `0x${(seq++).toString(16).padStart(40, '0')}`;

/** The flat error body (CONTRACT §3). */
export interface FlatBody {
  error: string;
  type: string;
  details: Record<string, unknown>;
  statusCode: number;
}

/** GET /api/mica/circuit-breaker/status → breakers. */
export async function breakerStatus(v: VendorApp) {
  const res = await v.t.app.inject({
    method: 'GET',
    url: '/api/mica/circuit-breaker/status',
    headers: v.auth,
  });
  return res.json().breakers as Record<
    string,
    { state: string; failures: number; successes: number; last_failure: string | null }
  >;
}

/** Screens an address by GET and expects a 200; returns the screening. */
export async function screenOk(
  t: TestApp,
  auth: Record<string, string>,
  address: string,
  chain = 'ethereum',
): Promise<Screening> {
  const res = await screenGet(t, auth, address, chain);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Screening;
}

/** Screens an EVM address by GET and expects the flat 503 VENDOR of a failed or open vendor. */
export async function expectVendorError(
  t: TestApp,
  auth: Record<string, string>,
  address: string,
  vendor: string,
  state: string,
  retryAfterS: number,
): Promise<FlatBody> {
  const res = await screenGet(t, auth, address, 'ethereum');
  assert.equal(res.statusCode, 503, res.body);
  const body = res.json() as FlatBody;
  assert.equal(body.type, 'VENDOR');
  assert.equal(body.statusCode, 503);
  assert.deepEqual(body.details, { vendor, breaker_state: state, retry_after: retryAfterS });
  assert.equal(res.headers['retry-after'], String(retryAfterS));
  return body;
}
