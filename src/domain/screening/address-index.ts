import { type Chain, isEvmChain } from './address/chains.ts';
import type { AddressScope, ListSource, SanctionsList } from './lists/model.ts';

/** A listed party whose address matched, with the entry resolved. */
export interface AddressMatch {
  list: ListSource;
  entry_id: string;
  name: string;
  programs: string[];
}

/** Lookup of sanctioned addresses across every held list. */
export interface AddressIndex {
  /** Matches for an address on a chain; [] when none (or when the address is not valid there). */
  lookup(chain: Chain, address: string): AddressMatch[];
  /** Number of distinct screenable keys, for status and tests. */
  readonly size: number;
}

function scopeOf(chain: Chain): AddressScope {
  if (isEvmChain(chain)) return 'evm';
  return chain === 'bitcoin' ? 'bitcoin' : 'solana';
}

/**
 * The list side's normalisation: EVM and bech32 lower-cased, base58 exact. Validity is not
 * required here: a listed key is proof enough, and a lookup must never miss a hit on a technicality.
 */
function matchKey(chain: Chain, address: string): string {
  const a = address.trim();
  if (isEvmChain(chain) || (chain === 'bitcoin' && /^bc1/i.test(a))) return a.toLowerCase();
  return a;
}

/** Builds the address index of the given lists; EVM addresses match on every EVM chain. */
export function buildAddressIndex(lists: SanctionsList[]): AddressIndex {
  const index = new Map<string, AddressMatch[]>();
  for (const list of lists) {
    const entries = new Map(list.entries.map((e) => [e.entry_id, e]));
    for (const listed of list.addresses) {
      if (listed.scope === 'unscreenable') continue;
      const key = `${listed.scope}:${listed.match_key}`;
      const matches = index.get(key) ?? [];
      // One party often lists the same address under several tickers (ETH, USDT, …): report it once.
      if (matches.some((m) => m.list === list.source && m.entry_id === listed.entry_id)) continue;
      const entry = entries.get(listed.entry_id);
      matches.push({
        list: list.source,
        entry_id: listed.entry_id,
        name: entry?.name ?? '',
        programs: entry ? [...entry.programs] : [],
      });
      index.set(key, matches);
    }
  }
  return {
    size: index.size,
    lookup(chain, address) {
      if (typeof address !== 'string') return [];
      const found = index.get(`${scopeOf(chain)}:${matchKey(chain, address)}`);
      return found ? found.map((m) => ({ ...m, programs: [...m.programs] })) : [];
    },
  };
}
