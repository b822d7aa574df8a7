import type { Dispatcher } from 'undici';
import type { Chain, RiskPart, VendorName, VendorReading } from '../domain/screening/index.ts';
import { VendorCallError } from './http.ts';

/** One wallet-screening vendor: its protocol on one side, the common risk profile on the other. */
export interface VendorClient {
  readonly name: VendorName;
  /** Throws VendorCallError when the vendor gives no usable answer. */
  screen(address: string, chain: Chain): Promise<RiskPart>;
}

/** What every vendor adapter is built from. */
export interface VendorSettings {
  url: string;
  key: string;
  timeoutMs: number;
  dispatcher: Dispatcher;
}

/** A JSON object, or undefined. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The risk a vendor's answer gives, or a failure (counted by its breaker) naming the field that
 * could not be read: an answer nobody understood is never taken as clean. The value itself rides
 * along apart from the message, for the log only.
 */
export function riskOf(vendor: VendorName, reading: VendorReading): RiskPart {
  if (reading.ok) return reading.risk;
  throw new VendorCallError(vendor, `unreadable answer: ${reading.problem}`, 'failure', reading.received);
}
