import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

// What never reaches a route (found by fuzzing): a URL that does not decode, an over-long path
// segment, requests Node's HTTP parser refuses. Each is answered in the documented error format,
// where Fastify's defaults wrote bodies of their own format.

/** Sends raw bytes and reads the whole answer (the server closes after an error). */
function raw(port: number, text: string): Promise<{ status: number; body: string; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (c) => {
      data += c;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: rest.join('\r\n\r\n'), head });
    });
    socket.write(text);
    socket.setTimeout(10_000, () => socket.destroy(new Error('timeout')));
  });
}

describe('malformed HTTP and URLs: documented formats', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let port: number;
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'acme'));
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  const request = (line: string, headers = '') =>
    raw(
      port,
      `${line}\r\nHost: x\r\nAuthorization: ${auth.authorization}\r\nConnection: close\r\n${headers}\r\n`,
    );

  it('a URL that does not decode is a 400 in the path’s format', async () => {
    const nested = await request('GET /api/alerts/%E0%A4%A HTTP/1.1');
    assert.equal(nested.status, 400);
    assert.deepEqual(JSON.parse(nested.body).error.details, {
      field: 'url',
      reason: 'Not a valid URL',
      errors: ['url: Not a valid URL'],
    });
    const flat = await request('GET /api/mica/wallet-screening/%E0%A4%A HTTP/1.1');
    assert.equal(flat.status, 400);
    assert.equal(JSON.parse(flat.body).type, 'VALIDATION');
    // Refused before routing, still with its request id (the caller's, when it sent one).
    const traced = await request('GET /api/alerts/%E0%A4%A HTTP/1.1', 'X-Request-Id: trace-42\r\n');
    assert.match(traced.head, /^x-request-id: trace-42$/im);
    const long = await request(`GET /api/cases/${'a'.repeat(2000)} HTTP/1.1`, 'X-Request-Id: trace-43\r\n');
    assert.equal(long.status, 404);
    assert.match(long.head, /^x-request-id: trace-43$/im);
  });

  it('an id longer than any is an unknown id: 404', async () => {
    const res = await request(`GET /api/cases/${'a'.repeat(2000)} HTTP/1.1`);
    assert.equal(res.status, 404);
    assert.equal(JSON.parse(res.body).error.code, 'NOT_FOUND');
  });

  it('requests the HTTP parser refuses get a JSON error in the format of the endpoint asked for', async () => {
    // A flat endpoint's answer is flat (CONTRACT §3), also when the parser refused the request.
    for (const [text, status, message] of [
      [
        `GET /api/mica/cache/stats HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        'Request headers are too large',
      ],
      [
        // A URL longer than the header limit: the parser stops inside the request line.
        `GET /api/mica/wallet-screening?wallet_address=${'a'.repeat(20_000)}&blockchain=ethereum HTTP/1.1\r\nHost: x\r\n\r\n`,
        431,
        'Request headers are too large',
      ],
      [
        'GET /api/mica/wallet-screening?x=1 HTTP/1.1\r\nHost: x\r\nX-Actor: a\u0001b\r\n\r\n',
        400,
        'Malformed HTTP request',
      ],
    ] as const) {
      const res = await raw(port, text);
      assert.equal(res.status, status, text.slice(0, 60));
      assert.deepEqual(JSON.parse(res.body), {
        error: message,
        type: 'VALIDATION',
        details: { errors: [`request: ${message}`] },
        statusCode: status,
      });
    }
    // Pipelined behind a good request, the refused one is still the one whose format is used.
    const behind = await raw(
      port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /api/mica/cache/stats HTTP/1.1\r\nHost: x\r\nX-Actor: a\u0001b\r\n\r\n',
    );
    assert.equal(JSON.parse(behind.body.slice(behind.body.lastIndexOf('{"error"'))).type, 'VALIDATION');
    const before = await raw(
      port,
      'GET /api/mica/cache/stats HTTP/1.1\r\nHost: x\r\n\r\nGET /api/mica/evaluate HTTP/1.1\r\nHost: x\r\nX-Actor: a\u0001b\r\n\r\n',
    );
    assert.equal(
      JSON.parse(before.body.slice(before.body.lastIndexOf('{"error"'))).error.code,
      'INVALID_REQUEST',
    );
    for (const text of [
      'FOO /api/mica/evaluate HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /api/mica/evaluate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcde',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Actor: a\u0001b\r\n\r\n',
    ]) {
      const res = await raw(port, text);
      assert.equal(res.status, 400, text);
      assert.deepEqual(JSON.parse(res.body), {
        error: { code: 'INVALID_REQUEST', message: 'Malformed HTTP request' },
      });
    }
    const big = await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.equal(big.status, 431);
    assert.equal(JSON.parse(big.body).error.code, 'INVALID_REQUEST');
    // The server still serves.
    assert.equal(
      (await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status,
      200,
    );
  });

  it('a body that is not JSON by its content type lists the problem', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: { ...auth, 'content-type': ';;;===' },
      payload: '{}',
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json().error.details.errors, [
      'body: Must be JSON (Content-Type: application/json)',
    ]);
  });

  it('a body over the limit gets its 413 although the client sends it all first, and the connection stays usable', async () => {
    // Fastify closes the connection after refusing a body; with the upload unread the kernel reset
    // it, and clients that write the whole body before reading (curl, most libraries) lost the 413.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const body = Buffer.alloc(5 * 1_048_576, 'x');
    const send = (path: string, payload?: Buffer, chunked = false) =>
      new Promise<{ status: number; body: string; reused: boolean }>((resolve, reject) => {
        const req = httpRequest(
          {
            agent,
            host: '127.0.0.1',
            port,
            path,
            method: payload ? 'POST' : 'GET',
            headers: {
              authorization: auth.authorization,
              ...(payload
                ? {
                    'content-type': 'application/json',
                    ...(chunked ? {} : { 'content-length': payload.length }),
                  }
                : {}),
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c) => {
              text += c;
            });
            // Settled once the request is done too (its upload may outlast the answer), so the
            // connection is back in the agent for the next one.
            req.on('close', () =>
              resolve({ status: res.statusCode ?? 0, body: text, reused: req.reusedSocket }),
            );
          },
        );
        req.on('error', reject);
        if (payload && chunked) {
          // Sent in pieces without a declared length: the limit is found while reading.
          for (let i = 0; i < payload.length; i += 65_536) req.write(payload.subarray(i, i + 65_536));
          req.end();
        } else req.end(payload);
      });
    try {
      for (const chunked of [false, true, false, true]) {
        const res = await send('/api/mica/evaluate', body, chunked);
        assert.equal(res.status, 413, res.body);
        assert.equal(JSON.parse(res.body).error.code, 'PAYLOAD_TOO_LARGE');
      }
      const after = await send('/healthz');
      assert.equal(after.status, 200);
      assert.ok(after.reused, 'the same connection served the next request');
    } finally {
      agent.destroy();
    }
  });
});
