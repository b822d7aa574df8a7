export { looksLikeBitcoin, validateBitcoinAddress } from './bitcoin.ts';
export { type AddressValidation, CHAINS, type Chain, isChain, isEvmChain } from './chains.ts';
export { toChecksumAddress, validateEvmAddress } from './evm.ts';
export { tryBase58, validateSolanaAddress } from './solana.ts';
export { inferChain, validateAddress } from './validate.ts';
