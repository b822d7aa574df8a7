export * from './address/index.ts';
export { type AddressIndex, type AddressMatch, buildAddressIndex } from './address-index.ts';
export { jaro, jaroWinkler } from './jaro-winkler.ts';
export * from './lists/index.ts';
export {
  buildNameIndex,
  buildNameIndexInSlices,
  DEFAULT_NAME_THRESHOLD,
  type NameIndex,
  type NameMatch,
  nameScore,
  normalizeName,
} from './name-match.ts';
export * from './risk.ts';
