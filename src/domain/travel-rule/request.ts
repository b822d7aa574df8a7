// One entry point for the travel-rule request body, whichever of its two forms it takes.
import { type IvmsOptions, mapIvms101Transfer } from './ivms101.ts';
import { isRecord, type TransferValidation, validateTransfer } from './transfer.ts';

/** True when the body is the IVMS101 form (it carries an `ivms101` member). */
export function isIvms101Request(input: unknown): boolean {
  return isRecord(input) && input.ivms101 !== undefined && input.ivms101 !== null;
}

/** Validates a travel-rule request body in the IVMS101 form or the plain JSON form. */
export function parseTravelRuleRequest(input: unknown, options: IvmsOptions = {}): TransferValidation {
  return isIvms101Request(input)
    ? mapIvms101Transfer(input, options)
    : validateTransfer(input, { today: options.today });
}
