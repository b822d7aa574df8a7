// Travel-rule domain: request validation (plain and IVMS101 forms), completeness, self-hosted
// detection, LEI checks and counterparty verification. Pure: no I/O, no clock.
export {
  assessCompleteness,
  type CompletenessResult,
  type DataCompleteness,
  isSelfHosted,
} from './completeness.ts';
export {
  type CaspDirectory,
  CaspDirectoryError,
  type CaspEntry,
  type CaspRecord,
  caspDirectoryFrom,
  normaliseCaspName,
  parseCaspDirectoryCsv,
  verifyCounterparty,
} from './counterparty.ts';
export {
  type IvmsIdentity,
  type IvmsOptions,
  type IvmsParseOptions,
  type IvmsParty,
  type IvmsPartySummary,
  type IvmsResult,
  mapIvms101Transfer,
  parseIvmsAddress,
  parseIvmsIdentityPayload,
  parseIvmsLegalPerson,
  parseIvmsNationalIdentification,
  parseIvmsNaturalPerson,
  parseIvmsPerson,
} from './ivms101.ts';
export { isValidLei, LEI_FORMAT, leiCheckDigits, leiProblem } from './lei.ts';
export { isIvms101Request, parseTravelRuleRequest } from './request.ts';
export {
  DIRECTIONS,
  type Direction,
  type TransferValidation,
  type TravelRuleBeneficiary,
  type TravelRuleOriginator,
  type TravelRuleTransfer,
  validateTransfer,
} from './transfer.ts';
