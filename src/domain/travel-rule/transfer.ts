// The normalised travel-rule transfer and the validator of the spec's plain JSON request
// (service-spec "Travel-rule validation", CONTRACT §7 "Travel rule").
import { CHAINS, type Chain, inferChain, validateAddress } from '../screening/address/index.ts';
import { hasVisibleText } from '../visible-text.ts';
import { leiProblem } from './lei.ts';

export type Direction = 'outbound' | 'inbound';
export const DIRECTIONS: readonly Direction[] = ['outbound', 'inbound'];

export interface TravelRuleOriginator {
  name?: string;
  wallet_address?: string;
  geographic_address?: string;
  national_id?: string;
  date_of_birth?: string;
  /** Extension: the client's own customer id for the originator, when it is one. */
  customer_id?: string;
}

export interface TravelRuleBeneficiary {
  name?: string;
  wallet_address?: string;
  casp_name?: string;
  casp_lei?: string;
  /** Extension: set when the beneficiary is one of the client's own customers (an internal transfer). */
  customer_id?: string;
}

export interface TravelRuleTransfer {
  transfer_id: string;
  direction: Direction;
  amount_eur: number;
  /** Extension: the amount in the crypto-asset, when given. */
  amount_crypto?: number;
  blockchain?: Chain;
  ownership_verified?: boolean;
  originator: TravelRuleOriginator;
  beneficiary: TravelRuleBeneficiary;
}

export type TransferValidation = { ok: true; transfer: TravelRuleTransfer } | { ok: false; errors: string[] };

export interface ValidateTransferOptions {
  /** Renames a plain dotted field in error messages (the IVMS101 form reports its own paths). */
  fieldPath?: (field: string) => string;
  /** Today as YYYY-MM-DD; when given, a date of birth must lie before it (as IVMS101's C2). */
  today?: string;
}

const EVM_CHAINS: readonly Chain[] = ['ethereum', 'polygon', 'binance-smart-chain'];
const ORIGINATOR_FIELDS = [
  'name',
  'wallet_address',
  'geographic_address',
  'national_id',
  'date_of_birth',
  'customer_id',
] as const;
const BENEFICIARY_FIELDS = ['name', 'wallet_address', 'casp_name', 'casp_lei', 'customer_id'] as const;
// Ids become cache keys and audit columns: bounded like every other id of the API.
const MAX_ID_LENGTH = 256;
/** A party's text fields (names, addresses, ids), as the OpenAPI document states them. */
const MAX_TEXT_LENGTH = 1024;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a value that carries nothing: absent, null, or a string with no visible character. */
export function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && !hasVisibleText(v));
}

/** True for a plain JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True for a YYYY-MM-DD string naming a real calendar day. */
export function isIsoDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** The chain an address is checked against: the declared one, else inferred (EVM → ethereum). */
export function chainForAddress(address: string, blockchain: Chain | undefined): Chain | undefined {
  if (blockchain) return blockchain;
  const inferred = inferChain(address);
  // An 0x address looks the same on every EVM chain; the contract names ethereum the default.
  return inferred && EVM_CHAINS.includes(inferred) ? 'ethereum' : inferred;
}

function readParty<K extends string>(
  input: unknown,
  prefix: string,
  fields: readonly K[],
  errors: string[],
  path: (field: string) => string,
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  if (isBlank(input)) return out;
  if (!isRecord(input)) {
    errors.push(`${path(prefix)}: Must be an object`);
    return out;
  }
  for (const field of fields) {
    const v = input[field];
    if (isBlank(v)) continue;
    if (typeof v !== 'string') errors.push(`${path(`${prefix}.${field}`)}: Must be a string`);
    else {
      // A customer id is bounded like every other id of the API (it is an audit filter too).
      const max = field === 'customer_id' ? MAX_ID_LENGTH : MAX_TEXT_LENGTH;
      if (longerThan(v, max)) errors.push(`${path(`${prefix}.${field}`)}: Must be at most ${max} characters`);
      else out[field] = v;
    }
  }
  return out;
}

/** Longer than `max` characters, counted as JSON Schema's maxLength and the IVMS101 reader count them (code points). */
function longerThan(v: string, max: number): boolean {
  return v.length > max && [...v].length > max;
}

// Reports header problems; returns false when `blockchain` is unusable for address checks.
function readHeader(body: Record<string, unknown>, errors: string[]): boolean {
  const { transfer_id, direction, amount_eur, amount_crypto, blockchain, ownership_verified } = body;
  if (isBlank(transfer_id)) errors.push('transfer_id: Required');
  else if (typeof transfer_id !== 'string') errors.push('transfer_id: Must be a string');
  else if (longerThan(transfer_id, MAX_ID_LENGTH))
    errors.push(`transfer_id: Must be at most ${MAX_ID_LENGTH} characters`);

  if (isBlank(direction)) errors.push('direction: Required');
  else if (!DIRECTIONS.includes(direction as Direction))
    errors.push(`direction: Must be one of: ${DIRECTIONS.join(', ')}`);

  if (amount_eur === undefined || amount_eur === null) errors.push('amount_eur: Required');
  else if (typeof amount_eur !== 'number' || !Number.isFinite(amount_eur))
    errors.push('amount_eur: Must be a finite number');
  else if (amount_eur < 0) errors.push('amount_eur: Must be >= 0');

  if (amount_crypto !== undefined && amount_crypto !== null) {
    if (typeof amount_crypto !== 'number' || !Number.isFinite(amount_crypto))
      errors.push('amount_crypto: Must be a finite number');
    else if (amount_crypto < 0) errors.push('amount_crypto: Must be >= 0');
  }

  const chainUsable = isBlank(blockchain) || CHAINS.includes(blockchain as Chain);
  if (!chainUsable) errors.push(`blockchain: Must be one of: ${CHAINS.join(', ')}`);

  if (
    ownership_verified !== undefined &&
    ownership_verified !== null &&
    typeof ownership_verified !== 'boolean'
  )
    errors.push('ownership_verified: Must be a boolean');
  return chainUsable;
}

function addressError(address: string, chain: Chain | undefined): string | undefined {
  const resolved = chainForAddress(address, chain);
  if (!resolved) return 'address format not recognised for any supported chain';
  const checked = validateAddress(resolved, address);
  return checked.ok ? undefined : checked.reason;
}

/**
 * A transfer moves on one chain: without `blockchain` each address is checked by its own form, so
 * a Solana originator paying an Ethereum beneficiary passed as complete (and was audited so).
 */
function chainMismatch(
  originator: string | undefined,
  beneficiary: string,
  blockchain: Chain | undefined,
): string | undefined {
  if (blockchain !== undefined || originator === undefined || addressError(originator, undefined))
    return undefined;
  const from = chainForAddress(originator, undefined);
  const to = chainForAddress(beneficiary, undefined);
  if (from === undefined || to === undefined || from === to) return undefined;
  const name = (chain: Chain) => (chain === 'ethereum' ? 'EVM' : chain);
  return `${to === 'ethereum' ? 'an' : 'a'} ${name(to)} address, not on the originator's chain (${name(from)}): both addresses of a transfer are on one chain (give blockchain)`;
}

// Value checks that need the parsed shape: addresses against their chain, the date, the LEI.
function valueErrors(
  t: TravelRuleTransfer,
  path: (field: string) => string,
  today: string | undefined,
): string[] {
  const found: [string, string | undefined][] = [];
  const { originator: o, beneficiary: b } = t;
  // With an unknown `blockchain` (an error of its own) each address is checked by its own form,
  // as without one: every problem is reported at once (CONTRACT §3).
  if (o.wallet_address !== undefined)
    found.push(['originator.wallet_address', addressError(o.wallet_address, t.blockchain)]);
  if (o.date_of_birth !== undefined && !isIsoDate(o.date_of_birth))
    found.push(['originator.date_of_birth', 'Must be a date YYYY-MM-DD']);
  else if (o.date_of_birth !== undefined && today !== undefined && o.date_of_birth >= today)
    found.push(['originator.date_of_birth', 'Must be a date in the past']);
  if (b.wallet_address !== undefined)
    found.push([
      'beneficiary.wallet_address',
      addressError(b.wallet_address, t.blockchain) ??
        chainMismatch(o.wallet_address, b.wallet_address, t.blockchain),
    ]);
  if (b.casp_lei !== undefined) found.push(['beneficiary.casp_lei', leiProblem(b.casp_lei)]);
  return found
    .filter(([, reason]) => reason !== undefined)
    .map(([field, reason]) => `${path(field)}: ${reason}`);
}

/** Checks a travel-rule request in the spec's JSON form and returns the normalised transfer or every error. */
export function validateTransfer(input: unknown, options: ValidateTransferOptions = {}): TransferValidation {
  const path = options.fieldPath ?? ((field: string) => field);
  if (!isRecord(input)) return { ok: false, errors: ['body: Must be an object'] };
  const errors: string[] = [];
  const chainUsable = readHeader(input, errors);
  const originator = readParty(input.originator, 'originator', ORIGINATOR_FIELDS, errors, path);
  const beneficiary = readParty(input.beneficiary, 'beneficiary', BENEFICIARY_FIELDS, errors, path);

  // Assembled even when the header is bad, so value errors are reported in the same answer.
  const transfer: TravelRuleTransfer = {
    transfer_id: input.transfer_id as string,
    direction: input.direction as Direction,
    amount_eur: input.amount_eur as number,
    originator,
    beneficiary,
  };
  if (!isBlank(input.blockchain) && chainUsable) transfer.blockchain = input.blockchain as Chain;
  if (typeof input.ownership_verified === 'boolean') transfer.ownership_verified = input.ownership_verified;
  if (typeof input.amount_crypto === 'number') transfer.amount_crypto = input.amount_crypto;

  errors.push(...valueErrors(transfer, path, options.today));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, transfer };
}
