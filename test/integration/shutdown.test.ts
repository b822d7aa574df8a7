import assert from 'node:assert/strict';
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { freshEvm, startVendorApp } from '../helpers/fake-vendors.ts';

describe('requests arriving while the server drains', () => {
  it("get the service's 503 in the route's error format, with Retry-After, and the connection closes", async () => {
    const v = await startVendorApp({ VENDOR_TIMEOUT_MS: '1500' });
    try {
      v.a.mode = 'hang';
      await v.t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = v.t.app.server.address() as AddressInfo;
      const socket = net.connect(port, '127.0.0.1');
      await once(socket, 'connect');
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => {
        data += d;
      });
      const ended = once(socket, 'close');
      const get = (path: string) =>
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${v.auth.authorization}\r\n\r\n`;
      // A screening held by a hanging vendor; the server starts to close; then another request
      // arrives on the same connection (still open: it is busy, not idle).
      socket.write(get(`/api/mica/wallet-screening?wallet_address=${freshEvm()}&blockchain=ethereum`));
      // Closing starts once the vendor holds the screening (the request is being handled).
      for (let i = 0; i < 500 && v.a.calls.length === 0; i++) await delay(20);
      const closing = v.t.app.close();
      await delay(100);
      socket.write(get('/api/mica/rules'));
      await ended;
      await closing;
      const at = data.indexOf('HTTP/1.1', 1);
      assert.ok(at > 0, `two answers:\n${data}`);
      const second = data.slice(at);
      assert.match(second, /^HTTP\/1\.1 503 /);
      assert.match(second, /\r\nretry-after: 5\r\n/i);
      assert.match(second, /\r\nconnection: close\r\n/i);
      const body = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)) as {
        error: { code: string; details: { retry_after: number } };
      };
      assert.equal(body.error.code, 'SERVICE_UNAVAILABLE');
      assert.equal(body.error.details.retry_after, 5);
    } finally {
      v.a.mode = 'ok';
      await v.close();
    }
  });
});
