// PostgreSQL text and jsonb refuse two things JavaScript strings can hold: the NUL character, and
// (jsonb) an unpaired UTF-16 surrogate such as a JSON "\ud800". A value holding either would fail
// in the INSERT as a 500; callers check first and answer 400 instead.

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NUL = String.fromCharCode(0);

const storableText = (s: string) => !s.includes(NUL) && !LONE_SURROGATE.test(s);

/** Whether every string in the value (object keys included) can be stored in text and jsonb columns. */
export function isStorable(value: unknown): boolean {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.every(isStorable);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).every(([k, v]) => storableText(k) && isStorable(v));
  return true;
}

/** The first `max` code points of a string: never cuts a surrogate pair in half (which jsonb would refuse). */
export function truncate(s: string, max: number): string {
  return s.length <= max ? s : Array.from(s).slice(0, max).join('');
}
