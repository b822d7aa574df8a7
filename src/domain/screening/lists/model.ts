import { validateBitcoinAddress } from '../address/bitcoin.ts';
import { validateEvmAddress } from '../address/evm.ts';
import { validateSolanaAddress } from '../address/solana.ts';

/** Which published list a record came from. */
export type ListSource = 'ofac' | 'eu' | 'un';

export type EntryType = 'individual' | 'entity' | 'vessel' | 'aircraft' | 'other';

/** One designated party. */
export interface SanctionsEntry {
  entry_id: string;
  name: string;
  type: EntryType;
  programs: string[];
  aliases: string[];
}

/** Where a listed address can be screened: the address spaces the service accepts, or none. */
export type AddressScope = 'bitcoin' | 'evm' | 'solana' | 'unscreenable';

/** A digital-currency address a list attaches to an entry. */
export interface ListedAddress {
  entry_id: string;
  /** The list's own currency code (OFAC: XBT, ETH, USDT, …); '' when the list gives none. */
  ticker: string;
  /** Exactly as published. */
  address: string;
  scope: AddressScope;
  /** Comparison key: EVM and bech32 lower-cased (both are case-insensitive), else as published. */
  match_key: string;
}

/** A whole list in the common model every loader produces. */
export interface SanctionsList {
  source: ListSource;
  /** ISO 8601 date or date-time of publication; null when the format does not carry it. */
  published_at: string | null;
  entries: SanctionsEntry[];
  addresses: ListedAddress[];
}

/** Thrown by loaders on a structure they do not recognise; the message says what was expected. */
export class ListFormatError extends Error {
  override readonly name = 'ListFormatError';
}

/** Tickers whose coins live on Bitcoin itself (OFAC writes XBT; BTC accepted for other lists). */
const BITCOIN_TICKERS = new Set(['XBT', 'BTC']);
/**
 * Omni-layer USDT rides on Bitcoin outputs: a valid Bitcoin address under USDT is a Bitcoin
 * address, so it is screened there too. Coins on other chains that merely share the address
 * format (BCH, BSV, BTG legacy addresses) are not: the same string there is another ledger.
 */
const BITCOIN_LAYER_TICKERS = new Set(['USDT']);
const SOLANA_TICKERS = new Set(['SOL']);

/** Decides where a listed address can be screened, from the list's ticker and the address form. */
export function classifyListedAddress(
  ticker: string,
  address: string,
): { scope: AddressScope; match_key: string } {
  const t = ticker.toUpperCase();
  if (/^0x/i.test(address)) {
    // One 0x key is the same account on every EVM chain, whatever ticker OFAC filed it under.
    const ok = validateEvmAddress('0x' + address.slice(2).toLowerCase()).ok;
    return { scope: ok ? 'evm' : 'unscreenable', match_key: address.toLowerCase() };
  }
  const btc = validateBitcoinAddress(address);
  if (btc.ok && (BITCOIN_TICKERS.has(t) || BITCOIN_LAYER_TICKERS.has(t) || t === '')) {
    return { scope: 'bitcoin', match_key: btc.normalized };
  }
  if ((SOLANA_TICKERS.has(t) || t === '') && validateSolanaAddress(address).ok) {
    return { scope: 'solana', match_key: address };
  }
  return { scope: 'unscreenable', match_key: address };
}

/** Builds a ListedAddress with its scope and match key. */
export function listedAddress(entry_id: string, ticker: string, address: string): ListedAddress {
  return { entry_id, ticker, address, ...classifyListedAddress(ticker, address) };
}
