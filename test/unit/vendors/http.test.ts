import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Agent } from 'undici';
import { callVendor, MAX_BODY_BYTES, NO_DATA, VendorCallError } from '../../../src/vendors/http.ts';

/**
 * One vendor call against a real HTTP server on 127.0.0.1: what each kind of answer means to the
 * breaker (CONTRACT §7), the request as sent, and the timeout bounding connection, headers and body.
 */
describe('callVendor', () => {
  type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
  const routes = new Map<string, Handler>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => routes.get(new URL(req.url!, 'http://x').pathname)!(req, body, res));
  });
  const dispatcher = new Agent({ keepAliveTimeout: 1000, connections: 16 });
  let base = '';
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await dispatcher.close();
  });

  let n = 0;
  /** A route answering with `handler`; returns its URL. */
  const route = (handler: Handler, query = '') => {
    const path = `/r${++n}`;
    routes.set(path, handler);
    return `${base}${path}${query}`;
  };
  const call = (url: string, extra: Partial<Parameters<typeof callVendor>[0]> = {}) =>
    callVendor({
      vendor: 'vendor_x',
      dispatcher,
      method: 'GET',
      url,
      headers: {},
      timeoutMs: 2000,
      ...extra,
    });
  const json =
    (status: number, payload: string) => (_req: IncomingMessage, _b: string, res: ServerResponse) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(payload);
  async function failsWith(p: Promise<unknown>, outcome: 'failure' | 'neutral', message: RegExp) {
    const err = await p.then(
      () => assert.fail('expected the call to fail'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof VendorCallError, String(err));
    assert.equal(err.outcome, outcome);
    assert.equal(err.vendor, 'vendor_x');
    assert.match(err.message, message);
  }

  it('sends the method, path, query, headers and JSON body, and parses the JSON answer', async () => {
    let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    const url = route((req, body, res) => {
      seen = { method: req.method, url: req.url, headers: req.headers, body };
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"risk_score":7,"name":"Zoë"}');
    }, '?chain=eth&x=%2F');
    const answer = await call(url, {
      method: 'POST',
      headers: { authorization: 'Bearer k' },
      body: [{ a: 1 }],
    });
    assert.deepEqual(answer, { risk_score: 7, name: 'Zoë' });
    assert.equal(seen.method, 'POST');
    assert.match(seen.url!, /\?chain=eth&x=%2F$/);
    assert.equal(seen.headers!.authorization, 'Bearer k');
    assert.equal(seen.headers!['content-type'], 'application/json');
    assert.equal(seen.headers!.accept, 'application/json');
    assert.equal(seen.body, '[{"a":1}]');

    const get = await call(
      route((req, body, res) =>
        res.end(JSON.stringify({ method: req.method, ct: req.headers['content-type'], body })),
      ),
    );
    assert.deepEqual(get, { method: 'GET', body: '' });
  });

  it('reads an answer that comes in many chunks', async () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({ i, pad: 'é'.repeat(20) }));
    const url = route((_req, _b, res) => {
      const text = JSON.stringify(items);
      res.writeHead(200);
      for (let at = 0; at < text.length; at += 1000) res.write(text.slice(at, at + 1000));
      res.end();
    });
    assert.deepEqual(await call(url), items);
  });

  it('a 404 is "no data" where the vendor means it so, and a refusal elsewhere', async () => {
    const url = route(json(404, '{"error":"not found"}'));
    assert.equal(await call(url, { notFoundIsNoData: true }), NO_DATA);
    // A 200 whose body is JSON null is that body, not "no data".
    assert.equal(await call(route(json(200, 'null')), { notFoundIsNoData: true }), null);
    await failsWith(call(url), 'neutral', /refused the request \(HTTP 404\)/);
  });

  it('other 4xx are neutral; 429, 5xx and unexpected statuses are failures', async () => {
    await failsWith(call(route(json(401, '{"error":"bad key"}'))), 'neutral', /HTTP 401/);
    await failsWith(call(route(json(429, '{}'))), 'failure', /HTTP 429/);
    await failsWith(call(route(json(503, 'maintenance'))), 'failure', /HTTP 503/);
    await failsWith(
      call(route((_q, _b, res) => res.writeHead(302, { location: '/elsewhere' }).end())),
      'failure',
      /unexpected HTTP 302/,
    );
  });

  it('an answer that is not JSON, or empty, is a failure', async () => {
    await failsWith(call(route(json(200, '<html>maintenance</html>'))), 'failure', /not JSON/);
    await failsWith(call(route(json(200, ''))), 'failure', /not JSON/);
  });

  it('an answer over the size limit is a failure, without waiting for the rest of it', async () => {
    let wrote = 0;
    const url = route((_req, _b, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const more = () => {
        while (wrote < 64 * MAX_BODY_BYTES) {
          wrote += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => {
        wrote = Number.POSITIVE_INFINITY;
      });
      more();
    });
    await failsWith(call(url, { timeoutMs: 10_000 }), 'failure', /answer too large/);
  });

  it('the timeout bounds a vendor that never answers, and one that sends its body too slowly', async () => {
    const hung: ServerResponse[] = [];
    const silent = route((_req, _b, res) => void hung.push(res));
    let started = performance.now();
    await failsWith(call(silent, { timeoutMs: 150 }), 'failure', /no answer within 150 ms/);
    assert.ok(performance.now() - started < 1500);

    const drip = route((_req, _b, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
      hung.push(res);
    });
    started = performance.now();
    await failsWith(call(drip, { timeoutMs: 200 }), 'failure', /no answer within 200 ms/);
    assert.ok(performance.now() - started < 1500);
    for (const res of hung) res.destroy();
  });

  it('a reset connection and a refused one are network failures', async () => {
    await failsWith(call(route((req) => req.socket.destroy())), 'failure', /network error/);
    await failsWith(call('http://127.0.0.1:1/nothing-listens'), 'failure', /network error \(ECONNREFUSED\)/);
  });
});
