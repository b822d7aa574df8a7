// Travel-rule data completeness and self-hosted detection (CONTRACT §7, EU 2023/1113).
import type { TravelRuleTransfer } from './transfer.ts';

export type DataCompleteness = 'complete' | 'partial' | 'missing';

export interface CompletenessResult {
  data_completeness: DataCompleteness;
  /** Missing required fields as dotted paths, in the order the contract lists them. */
  required_fields: string[];
}

// A transfer may be built by hand rather than by validateTransfer, so blank is re-checked here.
function present(v: string | undefined): boolean {
  return v !== undefined && v.trim() !== '';
}

/** Grades the originator/beneficiary data: `missing` (no names at all), `partial` or `complete`. */
export function assessCompleteness(transfer: TravelRuleTransfer): CompletenessResult {
  const { originator: o, beneficiary: b } = transfer;
  const required_fields: string[] = [];
  if (!present(o.name)) required_fields.push('originator.name');
  if (!present(o.wallet_address)) required_fields.push('originator.wallet_address');
  // Either identifies the originator; the address is the one named when both are absent.
  if (!present(o.geographic_address) && !present(o.national_id))
    required_fields.push('originator.geographic_address');
  if (!present(b.name)) required_fields.push('beneficiary.name');
  if (!present(b.wallet_address)) required_fields.push('beneficiary.wallet_address');

  let data_completeness: DataCompleteness = 'complete';
  if (!present(o.name) && !present(b.name)) data_completeness = 'missing';
  else if (required_fields.length > 0) data_completeness = 'partial';
  return { data_completeness, required_fields };
}

/** True when the beneficiary names no counterparty service provider (neither casp_name nor casp_lei). */
export function isSelfHosted(transfer: TravelRuleTransfer): boolean {
  const { casp_name, casp_lei } = transfer.beneficiary;
  return !present(casp_name) && !present(casp_lei);
}
