/**
 * Characters that show nothing on their own: white space and separators, controls, format
 * characters (zero-width space and joiners, bidi controls, BOM, tags), combining marks without a
 * base, and the fillers fonts render blank (Hangul fillers, braille blank). A name or an address
 * made only of them names no one: it counts as absent, as a blank string does (CONTRACT §7), or
 * incomplete travel-rule data would pass as complete. As a regular-expression class body, so the
 * JSON Schemas of the OpenAPI document state the same test (ECMAScript `u` patterns).
 */
export const INVISIBLE_CLASS = '\\s\\p{Cc}\\p{Cf}\\p{Z}\\p{M}\\u115F\\u1160\\u2800\\u3164\\uFFA0';

const VISIBLE = new RegExp(`[^${INVISIBLE_CLASS}]`, 'u');

/** True when the text has at least one character that shows. */
export function hasVisibleText(text: string): boolean {
  return VISIBLE.test(text);
}

/**
 * The bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): in text shown beside
 * other text (a name in a history, a field in an error) one reorders what a reader sees around it
 * (an override makes "evil" read "live"). The marks U+200E/U+200F do not, and stay allowed.
 */
export const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
