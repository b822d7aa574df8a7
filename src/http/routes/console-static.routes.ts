import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `vite build` (console/vite.config.ts) writes the web console. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

// Everything the page loads comes from this origin: no CDN, no inline script, no framing.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Serves the built web console at /console (a single page; it talks to the API with the officer's key). */
export const consoleStaticRoutes =
  (opts: { root?: string } = {}) =>
  async (app: FastifyInstance) => {
    const root = opts.root ?? CONSOLE_DIST;
    app.addHook('onSend', async (req, reply) => {
      if (!req.url.startsWith('/console')) return;
      reply.header('content-security-policy', CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-frame-options', 'DENY');
    });
    app.get('/console', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/console/'));
    if (!existsSync(`${root}index.html`)) {
      const notBuilt = async (_req: unknown, reply: FastifyReply) =>
        reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('The web console is not built: run `npm run build:console` (npm start does it).\n');
      app.get('/console/', { schema: { hide: true } }, notBuilt);
      app.get('/console/*', { schema: { hide: true } }, notBuilt);
      return;
    }
    await app.register(fastifyStatic, {
      root,
      prefix: '/console/',
      decorateReply: false,
      index: ['index.html'],
      cacheControl: false,
      // Bundled files carry a content hash in their names; the page itself is always revalidated.
      setHeaders: (res, path) => {
        res.setHeader(
          'cache-control',
          /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  };
