import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError } from '../../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received (webhook signatures are computed over these bytes). */
    rawBody?: Buffer;
  }
}

/**
 * Every body is read as bytes and parsed as JSON whatever its Content-Type claims: a caller who
 * forgets the header gets their JSON read, and anything that is not JSON is a 400, never a 415.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    req.rawBody = body;
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    try {
      done(null, secureJson.parse(body.toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new AppError('INVALID_REQUEST', 'Request body is not valid JSON', { field: 'body', reason: 'Malformed JSON' }), undefined);
    }
  });
}
