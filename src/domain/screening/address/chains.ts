/** Blockchains the wallet-screening API accepts (service-spec "Wallet screening"). */
export type Chain = 'ethereum' | 'bitcoin' | 'polygon' | 'binance-smart-chain' | 'solana';

export const CHAINS: readonly Chain[] = Object.freeze([
  'ethereum',
  'bitcoin',
  'polygon',
  'binance-smart-chain',
  'solana',
]);

const EVM_CHAINS: ReadonlySet<Chain> = new Set<Chain>(['ethereum', 'polygon', 'binance-smart-chain']);

/** True for chains that share the Ethereum address space (one key, same address everywhere). */
export function isEvmChain(c: Chain): boolean {
  return EVM_CHAINS.has(c);
}

/** Narrows an untrusted string to a supported chain. */
export function isChain(value: unknown): value is Chain {
  return typeof value === 'string' && (CHAINS as readonly string[]).includes(value);
}

/** Outcome of validating one address. */
export type AddressValidation = { ok: true; normalized: string } | { ok: false; reason: string };
