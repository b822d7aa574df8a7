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
