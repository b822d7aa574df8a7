import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sha256 } from '../../domain/sha256.ts';
import { AppError } from '../../errors.ts';
import type { Environment, KeysService, Principal } from '../../services/keys.service.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'client': a bearer API key; 'admin': an admin API key; 'operator': the operator token; 'none'. */
    auth?: 'client' | 'admin' | 'operator' | 'none';
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

/**
 * The 401 of a bearer endpoint names the scheme it wants (RFC 6750 §3): without a token, the bare
 * challenge; with one it did not accept, `invalid_token` (unknown, expired, revoked, or of the
 * other environment: which one is not said, as the body does not say it either).
 */
function unauthorized(message: string, token: string | undefined): AppError {
  const challenge =
    token === undefined ? 'Bearer realm="mica"' : 'Bearer realm="mica", error="invalid_token"';
  return new AppError('UNAUTHORIZED', message, undefined, { 'www-authenticate': challenge });
}

/** The caller behind a request that passed authentication. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError('UNAUTHORIZED', 'Missing or invalid API key');
  return req.principal;
}

/**
 * Authenticates before the body is read, so an unauthenticated caller learns nothing about validation.
 * Authentication is an onRequest hook; the role check of admin routes is a preParsing hook, so it
 * runs after every onRequest hook (the per-client rate limit among them: a valid key refused for its
 * role still gets the X-RateLimit-* headers and is counted, and a client over its limit gets 429,
 * not 403) and still before the body is read.
 */
export function registerAuth(
  app: FastifyInstance,
  deps: {
    keys: Pick<KeysService, 'authenticate'>;
    environment: Environment;
    operatorToken: () => string | undefined;
  },
): void {
  app.addHook('onRequest', async (req) => {
    const mode = req.routeOptions.config?.auth ?? 'none';
    if (mode === 'none') return;
    const token = bearer(req);
    if (mode === 'operator') {
      // The operator API serves the CLI on this machine (the embedded store's single process); the
      // token alone must not open full control of every tenant to the network.
      if (!isLocalConnection(req))
        throw new AppError('FORBIDDEN', 'The operator API answers only connections from this machine');
      const expected = deps.operatorToken();
      if (!token || !expected || !timingSafeEqualStr(token, expected))
        throw unauthorized('Missing or invalid operator token', token);
      return;
    }
    const principal = token ? await deps.keys.authenticate(token, deps.environment) : undefined;
    if (!principal) throw unauthorized('Missing, invalid, expired or revoked API key', token);
    req.principal = principal;
  });
  // Only the admin routes carry the role check (added as each route is declared), so the other
  // routes' requests do not pass through one more hook.
  const adminOnly = async (req: FastifyRequest) => {
    if (principalOf(req).role !== 'admin')
      throw new AppError('FORBIDDEN', 'This endpoint needs an admin key');
  };
  app.addHook('onRoute', (route) => {
    if ((route.config as { auth?: string } | undefined)?.auth !== 'admin') return;
    const own = route.preParsing;
    route.preParsing = own === undefined ? [adminOnly] : [adminOnly, ...(Array.isArray(own) ? own : [own])];
  });
}

/**
 * A connection from this machine: from a loopback address, or from the address it reached (the CLI
 * of a server listening on one interface only connects to that one), and not relayed by a proxy
 * (one on this machine would make every outside request look local).
 */
function isLocalConnection(req: FastifyRequest): boolean {
  const h = req.headers;
  if (h.forwarded !== undefined || h['x-forwarded-for'] !== undefined || h['x-real-ip'] !== undefined)
    return false;
  const { remoteAddress, localAddress } = req.socket;
  return isLoopback(remoteAddress) || (remoteAddress !== undefined && remoteAddress === localAddress);
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function timingSafeEqualStr(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
