export { mergeDuplicateEntries, nameNamelessEntries } from './entries.ts';
export { parseEuXml } from './eu-xml.ts';
export {
  type AddressScope,
  classifyListedAddress,
  type EntryType,
  type ListedAddress,
  ListFormatError,
  type ListSource,
  listedAddress,
  type SanctionsEntry,
  type SanctionsList,
} from './model.ts';
export {
  type CutRemarks,
  type OfacCsvFiles,
  type OfacCsvOptions,
  type OfacCsvResult,
  parseOfacCsv,
  REMARKS_CUT,
  splitPrograms,
} from './ofac-csv.ts';
export { ofacDate, parseOfacXml } from './ofac-xml.ts';
export {
  FUTURE_TOLERANCE_MS,
  normalizePublishedAt,
  publishedAfter,
  publishedBefore,
} from './published-at.ts';
export { extractRemarkAddresses, type RemarkAddress } from './remarks.ts';
export { printable, quoted } from './text.ts';
export { parseUnXml } from './un-xml.ts';
