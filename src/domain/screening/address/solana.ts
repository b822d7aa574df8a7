import { base58 } from '@scure/base';
import type { AddressValidation } from './chains.ts';

const BASE58_CHARS = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** Decodes base58 without throwing; undefined when the text is not base58. */
export function tryBase58(text: string): Uint8Array | undefined {
  if (!BASE58_CHARS.test(text)) return undefined;
  try {
    return base58.decode(text);
  } catch {
    return undefined;
  }
}

/**
 * Validates a Solana account address: base58 of exactly 32 bytes. On-curve is not required,
 * because program-derived addresses are legitimate (off-curve) account addresses.
 */
export function validateSolanaAddress(address: string): AddressValidation {
  // 32 bytes encode to 32..44 base58 characters; checking first keeps decoding cheap.
  if (address.length < 32 || address.length > 44) {
    return { ok: false, reason: 'Solana address must be 32 to 44 base58 characters' };
  }
  const bytes = tryBase58(address);
  if (!bytes) return { ok: false, reason: 'Solana address contains a non-base58 character' };
  if (bytes.length !== 32) return { ok: false, reason: 'Solana address must decode to 32 bytes' };
  return { ok: true, normalized: address };
}
