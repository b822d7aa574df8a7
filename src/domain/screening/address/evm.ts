import { keccak_256 } from '@noble/hashes/sha3.js';
import type { AddressValidation } from './chains.ts';

const EVM_FORM = /^0x[0-9a-fA-F]{40}$/;

/** EIP-55 checksum form of a 40-hex-digit body (without 0x). */
export function toChecksumAddress(address: string): string {
  const body = address.replace(/^0x/i, '').toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(body));
  let out = '0x';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    // Nibble i of the hash: high nibble for even i, low nibble for odd i.
    const byte = hash[i >> 1]!;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    out += nibble >= 8 ? ch.toUpperCase() : ch;
  }
  return out;
}

/** Validates an EVM address: 0x + 40 hex; EIP-55 enforced only when the letters are mixed case. */
export function validateEvmAddress(address: string): AddressValidation {
  if (!address.startsWith('0x')) {
    return { ok: false, reason: 'EVM address must start with 0x' };
  }
  if (!EVM_FORM.test(address)) {
    return { ok: false, reason: 'EVM address must be 0x followed by 40 hex digits' };
  }
  const body = address.slice(2);
  const lower = body.toLowerCase();
  const upper = body.toUpperCase();
  // All-lower and all-upper carry no checksum by convention (EIP-55 "backwards compatible").
  if (body !== lower && body !== upper && toChecksumAddress(body) !== address) {
    return { ok: false, reason: 'invalid EIP-55 checksum' };
  }
  return { ok: true, normalized: '0x' + lower };
}
