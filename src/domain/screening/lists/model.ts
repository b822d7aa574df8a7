import { validateAddress } from '../address/validate.ts';

/** Which published list a record came from. */
export type ListSource = 'ofac' | 'eu' | 'un';

export type EntryType = 'individual' | 'entity' | 'vessel' | 'aircraft' | 'other';

/** One designated party. */
export interface SanctionsEntry {
  entry_id: string;
  name: string;
  type: EntryType;
  programs: string[];
  /** Names the list gives as sufficient to identify the party: screened. */
  aliases: string[];
  /**
   * Names the list itself marks as not sufficient on their own (UN QUALITY "Low", OFAC sdn.xml
   * category "weak", EU strong="false"): kept for reading, never screened, not stored. Absent when
   * none (the OFAC CSV set marks no alias weak).
   */
  weak_aliases?: string[];
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
  /**
   * Why an address of a chain the service screens can never match: not a valid address of that
   * chain (a 39-digit ETH address). Absent otherwise; reported by the import, not stored.
   */
  problem?: string;
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
/** A ticker that says EVM even when the address lacks its 0x (which every EVM address has). */
const EVM_TICKERS = new Set(['ETH']);

type Classified = Pick<ListedAddress, 'scope' | 'match_key' | 'problem'>;

/** An address that claims a screened chain but is no valid address there: it can never match. */
const invalid = (match_key: string, chain: string, reason: string): Classified => ({
  scope: 'unscreenable',
  match_key,
  problem: `not a valid ${chain} address (${reason})`,
});

/**
 * Decides where a listed address can be screened, from the list's ticker and the address form,
 * with the validation that screening applies to a caller's address (validateAddress): a listed
 * address that fails it can never be asked for, so it is not screenable and says why.
 */
export function classifyListedAddress(ticker: string, address: string): Classified {
  const t = ticker.toUpperCase();
  if (/^0x/i.test(address) || EVM_TICKERS.has(t)) {
    // One 0x key is the same account on every EVM chain, whatever ticker OFAC filed it under. The
    // list's letter case is no EIP-55 checksum a caller must repeat: checked lower-cased.
    const key = address.toLowerCase();
    const evm = validateAddress('ethereum', key);
    return evm.ok ? { scope: 'evm', match_key: key } : invalid(key, 'EVM', evm.reason);
  }
  const btc = validateAddress('bitcoin', address);
  if (BITCOIN_TICKERS.has(t))
    return btc.ok ? { scope: 'bitcoin', match_key: btc.normalized } : invalid(address, 'Bitcoin', btc.reason);
  if (btc.ok && (BITCOIN_LAYER_TICKERS.has(t) || t === '')) {
    return { scope: 'bitcoin', match_key: btc.normalized };
  }
  const sol = validateAddress('solana', address);
  if (SOLANA_TICKERS.has(t))
    return sol.ok ? { scope: 'solana', match_key: address } : invalid(address, 'Solana', sol.reason);
  if (t === '' && sol.ok) return { scope: 'solana', match_key: address };
  // Another chain's coin (LTC, TRX, XMR…), or a form no ticker pins down: kept, not screened.
  return { scope: 'unscreenable', match_key: address };
}

/** Builds a ListedAddress with its scope and match key. */
export function listedAddress(entry_id: string, ticker: string, address: string): ListedAddress {
  return { entry_id, ticker, address, ...classifyListedAddress(ticker, address) };
}
