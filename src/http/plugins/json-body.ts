import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, type ErrorDetails, fieldError } from '../../errors.ts';
import { isStorable } from '../../storage/storable.ts';
import { runOnce } from '../../threads/run-once.ts';
import { duplicateKeyPath, stringEnd } from './duplicate-keys.ts';

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
      // time).
      const end = stringEnd(text, i);
      if (end === -1) return max; // an unterminated string: JSON.parse refuses the body
      i = end;
    } else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/**
 * Whether the text holds more than `limit` opening brackets, counted with indexOf (inside strings
 * too, so never fewer than nestingDepth sees). A body with no more cannot nest deeper, and the
 * character-by-character walk is skipped: a typical request has a handful of brackets, and the walk
 * cost more than parsing the JSON.
 */
function bracketsOver(text: string, limit: number): boolean {
  let n = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1))
      if (++n > limit) return true;
  }
  return false;
}

/** What secure-json-parse throws for a prototype-polluting key (its only non-syntax refusal). */
const FORBIDDEN_KEY_MESSAGE = 'Object contains forbidden prototype property';

/** Parses a body as JSON (undefined when empty); throws the 400 AppError of a deep or malformed one. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  const text = body.toString('utf8');
  // JSON is UTF-8 (RFC 8259 §8.1). A stray byte would be decoded as U+FFFD, so the request kept in
  // the audit trail (or a webhook's parsed body) would differ from the bytes sent and signed.
  if (text.includes('\uFFFD') && !isUtf8(body))
    throw new AppError('INVALID_REQUEST', 'Request body is not valid UTF-8', {
      field: 'body',
      reason: 'Invalid UTF-8',
    });
  if (bracketsOver(text, MAX_DEPTH) && nestingDepth(text) > MAX_DEPTH)
    throw new AppError('INVALID_REQUEST', `Request body is nested deeper than ${MAX_DEPTH} levels`, {
      field: 'body',
      reason: 'Nested too deeply',
    });
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    // Valid JSON, but a key that would reach an object's prototype when merged (`__proto__`, or
    // `constructor` holding `prototype`): refused, and said so rather than "not valid JSON".
    if ((err as Error).message === FORBIDDEN_KEY_MESSAGE)
      throw new AppError(
        'INVALID_REQUEST',
        'Request body contains a forbidden key (__proto__ or constructor.prototype)',
        {
          field: 'body',
          reason: 'Forbidden key __proto__ or constructor.prototype',
        },
      );
    throw new AppError('INVALID_REQUEST', 'Request body is not valid JSON', {
      field: 'body',
      reason: 'Malformed JSON',
    });
  }
  const duplicate = duplicateKeyPath(text, value);
  if (duplicate !== undefined) throw fieldError(duplicate, 'Duplicate key: an object names this field twice');
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
 * Bodies larger than this are parsed on a worker thread. Only the operator API accepts them (its
 * imports carry files of up to 128 MiB as JSON strings; every other route stops at
 * BODY_LIMIT_BYTES, 1 MiB by default): parsing 3.5 MB held the main thread ~10 ms, 100 MB would
 * hold it for a third of a second.
 */
export const OFF_THREAD_BODY_BYTES = 1024 * 1024;

/** parseJsonBody with its refusal as a value: what crosses back from a worker thread. */
export type BodyOutcome =
  | { ok: true; value: unknown }
  | { ok: false; message: string; details?: ErrorDetails };

/** parseJsonBody of bytes (a Buffer arrives on a worker thread as a Uint8Array). */
export function parseJsonBodyOutcome(bytes: Uint8Array): BodyOutcome {
  try {
    return { ok: true, value: parseJsonBody(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, message: err.message, details: err.details };
    throw err;
  }
}

/** parseJsonBody on a worker thread: the same value, or the same 400. */
export async function parseJsonBodyOffThread(body: Buffer): Promise<unknown> {
  const outcome = await runOnce<Uint8Array, BodyOutcome>(
    new URL(import.meta.url),
    'parseJsonBodyOutcome',
    body,
  );
  if (!outcome.ok) throw new AppError('INVALID_REQUEST', outcome.message, outcome.details);
  return outcome.value;
}

/**
 * A Content-Encoding other than identity, which this service does not decode: refused as a body
 * that is not JSON (400 in the route's format, CONTRACT §3's codes) rather than read as if it were
 * plain JSON (a body labelled compressed but sent plain was accepted, a compressed one failed as
 * "not valid UTF-8").
 */
export function encodingRefusal(header: string | undefined): AppError | undefined {
  if (header === undefined) return undefined;
  const value = header.trim().toLowerCase();
  if (value === '' || value === 'identity') return undefined;
  const reason = `Content-Encoding ${value.slice(0, 64)} is not supported; send the body uncompressed`;
  return new AppError('INVALID_REQUEST', `Invalid request: body: ${reason}`, {
    field: 'body',
    reason,
    errors: [`body: ${reason}`],
  });
}

/**
 * Every body is read as bytes and parsed as JSON whatever its Content-Type claims: a caller who
 * forgets the header gets their JSON read, and anything that is not JSON is a 400, a body sent
 * compressed (encodingRefusal) too.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    req.rawBody = body;
    const refused = encodingRefusal(req.headers['content-encoding']);
    if (refused) {
      done(refused, undefined);
      return;
    }
    if (body.length > OFF_THREAD_BODY_BYTES) {
      parseJsonBodyOffThread(body).then(
        (value) => done(null, value),
        (err: Error) => done(err, undefined),
      );
      return;
    }
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
