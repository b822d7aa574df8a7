import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError } from '../../errors.ts';
import { isStorable } from '../../storage/storable.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received (webhook signatures are computed over these bytes). */
    rawBody?: Buffer;
  }
}

/** Deeper documents are refused before parsing: no legitimate payload needs them, and deep
 * nesting would exhaust the stack of recursive consumers (the database's JSON parser included). */
const MAX_DEPTH = 64;

/** Deepest nesting of arrays and objects, ignoring brackets inside strings. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string is skipped with indexOf, not read character by character: the operator API's
      // list imports carry megabytes of file text in strings (3.5 MB took 11 ms a character at a
      // time). Its end is the next quote after an even run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let k = end - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((end - 1 - k) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return max; // an unterminated string: JSON.parse refuses the body
      i = end;
    } else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Parses a body as JSON (undefined when empty); throws the 400 AppError of a deep or malformed one. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  const text = body.toString('utf8');
  if (nestingDepth(text) > MAX_DEPTH)
    throw new AppError('INVALID_REQUEST', `Request body is nested deeper than ${MAX_DEPTH} levels`, {
      field: 'body',
      reason: 'Nested too deeply',
    });
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw new AppError('INVALID_REQUEST', 'Request body is not valid JSON', {
      field: 'body',
      reason: 'Malformed JSON',
    });
  }
  // Only a \u escape can put a NUL or a lone surrogate in parsed JSON (raw bytes cannot), so the
  // walk runs only for bodies that have one.
  if (text.includes('\\u') && !isStorable(value))
    throw new AppError('INVALID_REQUEST', 'Request body contains a NUL character or an unpaired surrogate', {
      field: 'body',
      reason: 'Contains characters that cannot be stored',
    });
  return value;
}

/**
 * Every body is read as bytes and parsed as JSON whatever its Content-Type claims: a caller who
 * forgets the header gets their JSON read, and anything that is not JSON is a 400, never a 415.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    req.rawBody = body;
    try {
      done(null, parseJsonBody(body));
    } catch (e) {
      done(e as AppError, undefined);
    }
  });
}

/**
 * For a plugin whose routes must see the bytes before any parsing (webhooks: the signature is
 * checked first, so a forged body is a 401 whatever it contains): keeps `rawBody`, parses nothing.
 */
export function registerRawBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    req.rawBody = body;
    done(null, undefined);
  });
}
