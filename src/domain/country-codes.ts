// ISO 3166-1 alpha-2 codes (249), taken from datasets/country-codes (PDDL) via
// shared/data/jurisdictions/country-codes.csv. Kosovo's XK is not ISO-assigned and is absent.
const ALPHA2 =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT ' +
  'BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ' +
  'ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT ' +
  'HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS ' +
  'LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI ' +
  'NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG ' +
  'SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW';

/** ISO 3166-1 alpha-2 country codes. */
export const ISO_COUNTRY_CODES: ReadonlySet<string> = new Set(ALPHA2.split(' '));

/** True for an assigned ISO 3166-1 alpha-2 code (upper case). */
export function isIsoCountryCode(code: string): boolean {
  return ISO_COUNTRY_CODES.has(code);
}

/**
 * The country codes the service takes in customer and transfer data: the assigned ISO 3166-1
 * alpha-2 codes, and XK. Kosovo has no ISO code; XK is the user-assigned code the European
 * Commission and most KYC vendors use for it, so an EU CASP's customers arrive with it. (IVMS101
 * messages keep to ISO codes: isIsoCountryCode.)
 */
export const COUNTRY_CODES: ReadonlySet<string> = new Set([...ISO_COUNTRY_CODES, 'XK']);

/**
 * The code of COUNTRY_CODES that `text` writes in any case, or undefined. Two ASCII letters only:
 * upper-casing alone would read look-alikes as codes (`ſy`, long s, is "SY"; `ır`, dotless i, is
 * "IR"), and such a text, kept in the audit as written, would not be found by a search for the code.
 */
export function countryCodeOf(text: string): string | undefined {
  if (!/^[A-Za-z]{2}$/.test(text)) return undefined;
  const code = text.toUpperCase();
  return COUNTRY_CODES.has(code) ? code : undefined;
}

/** The JSON Schema format of a country field: a code of COUNTRY_CODES in any case (http/validation.ts). */
export const COUNTRY_FORMAT = 'iso-country-code';
