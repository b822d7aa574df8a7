import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { Principal } from '../../services/keys.service.ts';
import { bearer } from './auth.ts';
import { sendError } from './error-handler.ts';

/** A route's path as a pattern: `:param` is one segment, `*` the rest. */
function patternOf(url: string): RegExp {
  const parts = url.split(/(:[A-Za-z0-9_]+|\*)/);
  const source = parts
    .map((p) => (p === '*' ? '.*' : p.startsWith(':') ? '[^/]+' : p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * Answers what no route serves: 405 with `Allow` for a path served under other methods (RFC 9110
 * §15.5.6), else 404, both in the format of the endpoints under that path. An API request with a
 * valid key is counted and gets the X-RateLimit-* headers, as on every other answer to a client
 * (no 401 for a bad key: there is nothing here to authenticate for). Registered before the routes
 * (it learns their methods as they are added) and after auth and rate limiting (it uses them).
 */
export function registerNotFound(
  app: FastifyInstance,
  deps: {
    authenticate: (token: string) => Promise<Principal | undefined>;
    limit: (principal: Principal, reply: FastifyReply) => Promise<void>;
  },
): (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  const routes: Array<{ url: string; pattern: RegExp; methods: Set<string> }> = [];
  app.addHook('onRoute', (route) => {
    let known = routes.find((r) => r.url === route.url);
    if (!known) {
      known = { url: route.url, pattern: patternOf(route.url), methods: new Set() };
      routes.push(known);
    }
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) known.methods.add(m);
  });
  const allowedFor = (path: string): string[] => {
    const methods = new Set<string>();
    for (const r of routes) if (r.pattern.test(path)) for (const m of r.methods) methods.add(m);
    return [...methods].sort();
  };

  /** The answer to a request no route serves; also given to those Fastify refuses before routing. */
  async function answer(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const path = req.url.split('?')[0]!;
    try {
      if (path.startsWith('/api/')) {
        const token = bearer(req);
        const principal = token ? await deps.authenticate(token) : undefined;
        if (principal) await deps.limit(principal, reply);
      }
    } catch (e) {
      if (e instanceof AppError) return sendError(req, reply, e);
      throw e;
    }
    const allowed = allowedFor(path);
    // Served under this method too: the route refused it before routing (a segment longer than
    // any id), an id that names nothing.
    if (allowed.length === 0 || allowed.includes(req.method))
      return sendError(req, reply, new AppError('NOT_FOUND', `Route ${req.method} ${path} not found`));
    return sendError(
      req,
      reply,
      new AppError(
        'METHOD_NOT_ALLOWED',
        `Method ${req.method} not allowed on ${path}; allowed: ${allowed.join(', ')}`,
        { allowed },
        { allow: allowed.join(', ') },
      ),
    );
  }
  app.setNotFoundHandler(answer);
  return answer;
}
