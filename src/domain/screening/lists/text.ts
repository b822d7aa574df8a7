import { ListFormatError } from './model.ts';

/** Accepts file contents as text or bytes (UTF-8), dropping a byte-order mark. */
export function asText(input: string | Uint8Array, what: string): string {
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else if (input instanceof Uint8Array) {
    text = new TextDecoder('utf-8').decode(input);
  } else {
    throw new ListFormatError(`${what}: expected file contents as a string or bytes`);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Trims and collapses internal white space (XML text often carries line breaks). */
export function clean(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

/** Unique non-empty values in first-seen order. */
export function uniq(values: Iterable<string>): string[] {
  const seen = new Set<string>();
  for (const v of values) {
    if (v !== '') seen.add(v);
  }
  return [...seen];
}

/** Longest stretch of a file's content a message quotes. */
const QUOTED_MAX = 40;

/**
 * Text taken from a file, made fit for a message: at most `max` characters, anything unprintable
 * escaped (\u0016). A binary file's bytes must not reach the operator's terminal or a log line,
 * nor a whole file one error.
 */
export function printable(value: string, max = QUOTED_MAX): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  return cut.replace(/[\p{C}\uFFFD]/gu, (c) => {
    const code = c.codePointAt(0)!.toString(16);
    return code.length > 4 ? `\\u{${code}}` : `\\u${code.padStart(4, '0')}`;
  });
}

/** The same, in double quotes. */
export const quoted = (value: string, max?: number) => `"${printable(value, max)}"`;

/**
 * A parser's message about a file (csv-parse, the XML validator), fit for an error: the values it
 * quotes from the file ("…" or '…') cut short, nothing unprintable, the whole bounded. Such a
 * message pasted a binary file's bytes into the error (csv-parse's "value is …").
 */
export function parserMessage(message: string): string {
  // A quoted value cut off by the slice runs to its end, and is cut short like the others.
  const head = message.slice(0, 2000);
  const cut = head.replace(
    /(["'])((?:\\.|(?!\1)[^\\])*)(\1|$)/g,
    (_, q: string, inner: string, end: string) => `${q}${printable(inner)}${end || q}`,
  );
  return printable(cut, 300);
}
