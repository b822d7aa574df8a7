/**
 * Duplicate object keys. JSON.parse keeps the last of `{"amount_eur":10,"amount_eur":50000}`, while
 * the request kept in the audit trail shows both: a reader of the evidence (or another parser, some
 * of which keep the first) could see another request than the one evaluated. RFC 8259 §4 leaves
 * such a text's meaning to the parser and I-JSON (RFC 7493 §2.3) forbids it, so it is refused.
 */

import { BIDI_CONTROL } from '../../domain/visible-text.ts';
import { isStorable } from '../../storage/storable.ts';

/** Index of the quote that closes the string opened at `open`, or -1 when it is never closed. */
export function stringEnd(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  while (end !== -1) {
    // A quote ends the string when an even run of backslashes (none included) precedes it.
    let k = end - 1;
    while (text.charCodeAt(k) === 92) k--;
    if ((end - 1 - k) % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}

/** Index of the first character after `from` that is not JSON whitespace. */
function skipSpace(text: string, from: number): number {
  let j = from;
  for (let c = text.charCodeAt(j); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++j));
  return j;
}

/** How many keys the text names: strings followed by a colon. Outside strings valid JSON has no
 * quote, so the walk jumps from string to string with indexOf. */
function keysInText(text: string): number {
  let n = 0;
  for (let i = text.indexOf('"'); i !== -1; ) {
    const end = stringEnd(text, i);
    if (end === -1) break;
    if (text.charCodeAt(skipSpace(text, end + 1)) === 58) n++;
    i = text.indexOf('"', end + 1);
  }
  return n;
}

/** How many keys the parsed value holds, at every depth. */
function keysInValue(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += keysInValue(item);
    return n;
  }
  for (const key in value) n += 1 + keysInValue((value as Record<string, unknown>)[key]);
  return n;
}

interface Container {
  /** The keys of an object seen so far; undefined for an array. */
  keys?: Set<string>;
  path: string;
  /** The array's current index, or the path of the object's current key. */
  index: number;
  current: string;
}

function keyPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The path of the first key named twice in one object of the text (valid JSON), walked in order. */
function firstDuplicatePath(text: string): string | undefined {
  const stack: Container[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
      const top = stack[stack.length - 1];
      if (top?.keys && text.charCodeAt(skipSpace(text, end + 1)) === 58) {
        // Decoded, so that "a" and "\u0061" are the same key, as they are to JSON.parse.
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        top.current = keyPath(top.path, key);
        if (top.keys.has(key)) return top.current;
        top.keys.add(key);
      }
      i = end;
    } else if (c === 123 || c === 91) {
      const parent = stack[stack.length - 1];
      const path =
        parent === undefined ? '' : parent.keys ? parent.current : `${parent.path}[${parent.index}]`;
      stack.push({ keys: c === 123 ? new Set() : undefined, path, index: 0, current: path });
    } else if (c === 125 || c === 93) stack.pop();
    else if (c === 44) {
      const top = stack[stack.length - 1];
      if (top && !top.keys) top.index++;
    }
  }
  return undefined;
}

/**
 * The path (`data.amount_eur`, `items[2].name`) of the first key that an object of `text` names
 * twice, or undefined when none does. `value` is JSON.parse(text): the common case, no duplicate,
 * costs a count of the keys on both sides (an object keeps one entry per distinct key); only a
 * mismatch walks the text again to name the key.
 */
export function duplicateKeyPath(text: string, value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (keysInText(text) === keysInValue(value)) return undefined;
  const path = firstDuplicatePath(text);
  return path !== undefined && fitToEcho(path) ? path : 'body';
}

/**
 * The path is the caller's text, echoed in the answer (and shown by the console): named only when
 * it is short and plain. An empty key (`""`, `a.`), a control or bidi character, a NUL, a lone
 * surrogate or a 100 KB key makes it the body's problem instead.
 */
function fitToEcho(path: string): boolean {
  return (
    path !== '' &&
    path.length <= MAX_PATH &&
    !path.startsWith('.') &&
    !path.endsWith('.') &&
    !path.includes('..') &&
    !/\p{Cc}/u.test(path) &&
    !BIDI_CONTROL.test(path) &&
    isStorable(path)
  );
}

/** The longest key path an answer echoes. */
const MAX_PATH = 256;
