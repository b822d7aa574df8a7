// Shared by the IVMS101 constraint and mapping tests: the TRISA example payload and editors.
import { type IvmsOptions, mapIvms101Transfer } from '../../../src/domain/travel-rule/ivms101.ts';
import { edited, fixture } from './helpers.ts';

export const PAYLOAD = fixture<Record<string, unknown>>('ivms101/identity_payload.json');
export const O = 'originator.originatorPersons.0.naturalPerson';
export const B = 'beneficiary.beneficiaryPersons.0.naturalPerson';
export const OV = 'originatingVASP.originatingVASP.legalPerson';
export const BV = 'beneficiaryVASP.beneficiaryVASP.legalPerson';

/** The IVMS path of a helper path: `a.0.b` → `ivms101.a[0].b`. */
export const ivms = (path: string) => `ivms101.${path.replace(/\.(\d+)/g, '[$1]')}`;

/** The errors of an IVMS101-form request around `ivms101` ([] when accepted). */
export function errorsFor(ivms101: unknown, options: IvmsOptions = {}): string[] {
  const result = mapIvms101Transfer(
    { transfer_id: 't', direction: 'inbound', amount_eur: 1, ivms101 },
    options,
  );
  return result.ok ? [] : result.errors;
}

/** Errors after setting (or, with undefined, removing) one element of the example payload. */
export function errorsAfter(path: string, value?: unknown, options?: IvmsOptions): string[] {
  return errorsFor(edited(PAYLOAD, path, value), options);
}
