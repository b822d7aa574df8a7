import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import type { AddressValidation } from './chains.ts';

const base58check = createBase58check(sha256);

const BASE58_CHARS = /^[1-9A-HJ-NP-Za-km-z]+$/;
const BECH32_DATA = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
/** Version bytes of base58check addresses on Bitcoin mainnet (BIP13: P2PKH 0x00, P2SH 0x05). */
const MAINNET_VERSIONS = new Set([0x00, 0x05]);
/** Testnet/regtest versions, rejected with a clearer reason than "unknown version". */
const TESTNET_VERSIONS = new Set([0x6f, 0xc4]);
const NOT_MAINNET = 'not a mainnet bitcoin address';

function fail(reason: string): AddressValidation {
  return { ok: false, reason };
}

/** BIP173/BIP350 segwit address on hrp `bc`. */
function validateSegwit(address: string): AddressValidation {
  const lower = address.toLowerCase();
  const sep = lower.lastIndexOf('1');
  const hrp = lower.slice(0, sep);
  // The network first: a string of another form is "not a mainnet address", whatever its case.
  if (hrp !== 'bc') return fail(NOT_MAINNET);
  if (address !== lower && address !== address.toUpperCase()) return fail('mixed-case bech32 address');
  if (lower.length > 90) return fail('bech32 address longer than 90 characters');
  const data = lower.slice(sep + 1);
  if (!BECH32_DATA.test(data)) return fail('invalid bech32 character');
  if (data.length < 6) return fail('bech32 checksum too short');
  const asBech32 = bech32.decodeUnsafe(lower, 90);
  const asBech32m = asBech32 ? undefined : bech32m.decodeUnsafe(lower, 90);
  const decoded = asBech32 ?? asBech32m;
  if (!decoded) return fail('invalid bech32 checksum');
  const [version, ...programWords] = decoded.words;
  if (version === undefined) return fail('empty bech32 data section');
  if (version > 16) return fail('invalid witness version');
  // BIP350: v0 keeps the original bech32 constant, v1..16 must use bech32m.
  if (version === 0 && !asBech32) return fail('witness v0 must use bech32, not bech32m');
  if (version > 0 && !asBech32m) return fail('witness v1+ must use bech32m, not bech32');
  const program = bech32.fromWordsUnsafe(programWords);
  if (!program) return fail('invalid bech32 padding');
  if (program.length < 2 || program.length > 40) return fail('invalid witness program length');
  if (version === 0 && program.length !== 20 && program.length !== 32) {
    return fail('invalid witness v0 program length');
  }
  return { ok: true, normalized: lower };
}

/** Legacy base58check address: P2PKH (0x00) or P2SH (0x05). */
function validateBase58(address: string): AddressValidation {
  // 25-byte payloads encode to at most 35 characters; longer input is not an address.
  if (address.length < 25 || address.length > 35) return fail('invalid base58 address length');
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return fail('invalid base58check checksum');
  }
  if (payload.length !== 21) return fail('invalid base58 address length');
  const version = payload[0]!;
  if (MAINNET_VERSIONS.has(version)) return { ok: true, normalized: address };
  if (TESTNET_VERSIONS.has(version)) return fail(NOT_MAINNET);
  return fail('not a bitcoin address version');
}

/** Validates a Bitcoin mainnet address (base58check P2PKH/P2SH, bech32 v0, bech32m v1..16). */
export function validateBitcoinAddress(address: string): AddressValidation {
  if (!PRINTABLE_ASCII.test(address)) return fail('bitcoin address contains an invalid character');
  const lower = address.toLowerCase();
  if (lower.startsWith('bc1') || lower.startsWith('tb1') || lower.startsWith('bcrt1')) {
    return validateSegwit(address);
  }
  if (BASE58_CHARS.test(address)) return validateBase58(address);
  if (/^0x[0-9a-f]{40}$/i.test(address)) return fail('an EVM address (0x…), not a bitcoin address');
  // Not base58; if it has a separator it is some other bech32 form (another hrp or network).
  if (lower.lastIndexOf('1') > 0) return validateSegwit(address);
  return fail('not a bitcoin address');
}

/** True when the string has the outward form of a Bitcoin address (used to infer the chain). */
export function looksLikeBitcoin(address: string): boolean {
  const lower = address.toLowerCase();
  if (lower.startsWith('bc1') || lower.startsWith('tb1') || lower.startsWith('bcrt1')) return true;
  return /^[13][1-9A-HJ-NP-Za-km-z]{24,34}$/.test(address);
}
