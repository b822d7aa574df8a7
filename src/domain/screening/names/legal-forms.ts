/**
 * Words naming a company's legal form, not the company: "CASA GRAJALES S.A." is CASA GRAJALES,
 * "ZEDCEX EXCHANGE LIMITED" is "Zedcex Exchange Ltd", "GENERAL PETROLEUM CORPORATION" is "General
 * Petroleum Corp". Left out of an organisation's name (and of the query compared with it), they
 * are optional, and so equivalent to one another. As normalised: "S.A." is `sa`, "S.R.L." `srl`,
 * "OÜ" `ou`. "THE" is left out with them ("THE ISLAMIC INTERNATIONAL BRIGADE"). Never applied to
 * a person's name, where CO, SA or AB may be part of the name.
 */
export const LEGAL_FORMS = new Set([
  'ab',
  'ag',
  'as',
  'asa',
  'bhd',
  'bv',
  'cia',
  'cjsc',
  'co',
  'company',
  'corp',
  'corporation',
  'cv',
  'doo',
  'fz',
  'fzc',
  'fzco',
  'fze',
  'fzllc',
  'gmbh',
  'inc',
  'incorporated',
  'jsc',
  'kft',
  'liability',
  'limited',
  'llc',
  'llp',
  'lp',
  'ltd',
  'ltda',
  'nv',
  'oao',
  'ojsc',
  'ooo',
  'ou',
  'oy',
  'pao',
  'pjsc',
  'plc',
  'pte',
  'pty',
  'pvt',
  'sa',
  'sae',
  'sal',
  'sarl',
  'sas',
  'sdn',
  'spa',
  'srl',
  'sro',
  'the',
  'zao',
]);

/** The words of an organisation's name without its legal form; the words as given if nothing else is left. */
export function withoutLegalForm(words: string[]): string[] {
  const kept = words.filter((w) => !LEGAL_FORMS.has(w));
  return kept.length > 0 ? kept : words;
}
