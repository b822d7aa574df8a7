import { looksLikeBitcoin, validateBitcoinAddress } from './bitcoin.ts';
import { type AddressValidation, type Chain, isChain, isEvmChain } from './chains.ts';
import { validateEvmAddress } from './evm.ts';
import { validateSolanaAddress } from './solana.ts';

/** Longest string worth decoding; keeps base58 (quadratic) decoding of hostile input cheap. */
const MAX_ADDRESS_LENGTH = 128;

/** Validates an address for a chain; never throws, whatever the input. */
export function validateAddress(chain: Chain, address: string): AddressValidation {
  if (typeof address !== 'string' || address.length === 0) return { ok: false, reason: 'address is empty' };
  if (!isChain(chain)) return { ok: false, reason: 'unsupported blockchain' };
  if (address.length > MAX_ADDRESS_LENGTH) return { ok: false, reason: 'address is too long' };
  if (/\s/.test(address)) return { ok: false, reason: 'address contains white space' };
  try {
    if (isEvmChain(chain)) return validateEvmAddress(address);
    if (chain === 'bitcoin') return validateBitcoinAddress(address);
    return validateSolanaAddress(address);
  } catch {
    // The codecs are total on the inputs we pass, but a validator must never take the request down.
    return { ok: false, reason: 'malformed address' };
  }
}

/**
 * Guesses the chain from the address form: 0x… → ethereum, Bitcoin forms → bitcoin,
 * base58 of 32 bytes → solana. It looks at form, not validity: validate afterwards.
 */
export function inferChain(address: string): Chain | undefined {
  if (typeof address !== 'string' || address.length === 0 || address.length > MAX_ADDRESS_LENGTH) {
    return undefined;
  }
  if (/^0x/i.test(address)) return 'ethereum';
  // A valid Bitcoin address decodes to 21 bytes, a Solana one to 32, so the two cannot collide.
  if (validateBitcoinAddress(address).ok) return 'bitcoin';
  if (validateSolanaAddress(address).ok) return 'solana';
  // A mistyped Bitcoin address is still reported as Bitcoin, so validation can say what is wrong.
  if (looksLikeBitcoin(address)) return 'bitcoin';
  return undefined;
}
