// Cache keys of the result caches (CONTRACT §7), in one place so that the services that fill a
// cache and the invalidation endpoint that empties it always agree on the format.
// Client ids cannot hold ':' (clients.service), so `<ns>:<client_id>:` is an exact client prefix.

import { type ClientRuleSettings, ruleSetVersion } from '../domain/rules/index.ts';

/** The result caches, named as GET /api/mica/cache/stats reports them. */
export const CACHE_NAMESPACES = ['wallet_screening', 'travel_rule'] as const;
export type CacheNamespace = (typeof CACHE_NAMESPACES)[number];

/** How long a cached result lives (service-spec "Limits": 300 s for both caches). */
export const CACHE_TTL_SECONDS: Readonly<Record<CacheNamespace, number>> = Object.freeze({
  wallet_screening: 300,
  travel_rule: 300,
});

const PREFIX: Readonly<Record<CacheNamespace, string>> = Object.freeze({
  wallet_screening: 'wallet',
  travel_rule: 'travel',
});

const EVM_ADDRESS = /^0x[0-9a-f]{40}$/i;
/** A Bitcoin segwit address (BIP-173): written all lower- or all upper-case (QR codes), one address. */
const BECH32_ADDRESS = /^(?:bc1[02-9ac-hj-np-z]+|BC1[02-9AC-HJ-NP-Z]+)$/;

/** Every key of one client in one cache starts with this. */
export function cachePrefix(ns: CacheNamespace, clientId: string): string {
  return `${PREFIX[ns]}:${clientId}:`;
}

/**
 * The address as it appears in a key: EVM addresses lower-cased (one account whatever the
 * checksum casing), bech32 too (`BC1Q…` is `bc1q…`: two entries, and invalidating one spelling
 * left the other answering), every other form exactly as given (base58 is case-sensitive).
 */
export function walletAddressKeyPart(address: string): string {
  return EVM_ADDRESS.test(address) || BECH32_ADDRESS.test(address) ? address.toLowerCase() : address;
}

/** `wallet:{client_id}:{address, lower-cased for EVM and bech32}:{blockchain}`. */
export function walletCacheKey(clientId: string, address: string, blockchain: string): string {
  return `${cachePrefix('wallet_screening', clientId)}${walletAddressKeyPart(address)}:${blockchain}`;
}

/** The prefix of one address's entries on every chain. */
export function walletAddressPrefix(clientId: string, address: string): string {
  return `${cachePrefix('wallet_screening', clientId)}${walletAddressKeyPart(address)}:`;
}

/** The suffix of one chain's entries (addresses hold no ':'; a chain name is a whole key segment). */
export function walletChainSuffix(blockchain: string): string {
  return `:${blockchain}`;
}

/** `travel:{client_id}:{transfer_id}`. */
export function travelCacheKey(clientId: string, transferId: string): string {
  return `${cachePrefix('travel_rule', clientId)}${transferId}`;
}

/**
 * The part of a cached answer's fingerprint that names the client's rule settings (thresholds,
 * disabled rules, high-risk list): an answer decided under other settings is a miss, so a change
 * takes effect as the settings are reloaded (AUTH_CACHE_MS), not when the entry expires.
 */
export function rulesFingerprint(settings: ClientRuleSettings | undefined): string {
  return `rules=${settings ? ruleSetVersion(settings) : 'none'}`;
}
