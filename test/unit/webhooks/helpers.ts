// Shared test helpers: fixtures under test/fixtures/webhooks/ and byte conversions.
import { readFileSync } from 'node:fs';

/** Reads a JSON fixture under test/fixtures/webhooks/. */
export function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../fixtures/webhooks/${name}`, import.meta.url), 'utf8')) as T;
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
export const fromHex = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));
export const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** The string whose UTF-8 encoding is exactly these bytes, or null when they are not valid UTF-8. */
export function utf8String(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}
