import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { consoleStaticRoutes } from '../../src/http/routes/console-static.routes.ts';

async function serve(root: string): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(consoleStaticRoutes({ root }));
  await app.ready();
  return app;
}

describe('the console at /console', () => {
  let built: FastifyInstance;
  let missing: FastifyInstance;
  before(async () => {
    const root = `${mkdtempSync(join(tmpdir(), 'mica-console-'))}/`;
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
    built = await serve(root);
    missing = await serve(`${mkdtempSync(join(tmpdir(), 'mica-console-empty-'))}/`);
  });
  after(async () => {
    await built.close();
    await missing.close();
  });

  it('redirects /console to the page, served with a same-origin-only policy and revalidation', async () => {
    const r = await built.inject({ method: 'GET', url: '/console' });
    assert.equal(r.statusCode, 302);
    assert.equal(r.headers.location, '/console/');
    const page = await built.inject({ method: 'GET', url: '/console/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    assert.match(page.body, /<title>console<\/title>/);
    const csp = page.headers['content-security-policy'] as string;
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
  });

  it('serves hashed assets as immutable and answers 404 for what is not there', async () => {
    const js = await built.inject({ method: 'GET', url: '/console/assets/index-abc123.js' });
    assert.equal(js.statusCode, 200);
    assert.match(js.headers['cache-control'] as string, /immutable/);
    assert.equal((await built.inject({ method: 'GET', url: '/console/assets/nope.js' })).statusCode, 404);
    assert.equal((await built.inject({ method: 'GET', url: '/console/../package.json' })).statusCode, 404);
  });

  it('says how to build it when the build is missing', async () => {
    const r = await missing.inject({ method: 'GET', url: '/console/' });
    assert.equal(r.statusCode, 503);
    assert.match(r.body, /npm run build:console/);
  });
});
