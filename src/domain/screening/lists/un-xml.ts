import { type EntryType, ListFormatError, type SanctionsEntry, type SanctionsList } from './model.ts';
import { clean, uniq } from './text.ts';
import { attr, children, fileLabel, parseXmlRoot, text, type XmlFile, type XmlNode } from './xml.ts';

// UN Security Council Consolidated List (https://www.un.org/sc/resources/sc-sanctions.xsd):
//   <CONSOLIDATED_LIST dateGenerated="…">
//     <INDIVIDUALS><INDIVIDUAL><DATAID/><FIRST_NAME/>…<FOURTH_NAME/><UN_LIST_TYPE/>
//       <REFERENCE_NUMBER/><NAME_ORIGINAL_SCRIPT/><INDIVIDUAL_ALIAS><QUALITY/><ALIAS_NAME/></INDIVIDUAL_ALIAS>…
//     (QUALITY Good, Low, or empty; entities' aliases: a.k.a., f.k.a.)
//     <ENTITIES><ENTITY><DATAID/><FIRST_NAME/>…<ENTITY_ALIAS><ALIAS_NAME/></ENTITY_ALIAS>…
// The list carries no digital-currency addresses.

const NAME_PARTS = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME'];

function toEntry(node: XmlNode, type: EntryType, aliasTag: string, where: XmlFile): SanctionsEntry {
  const reference = clean(text(node, 'REFERENCE_NUMBER'));
  const dataId = clean(text(node, 'DATAID'));
  // The reference (e.g. QDi.001) is what notices and other lists cite; DATAID is the fallback key.
  const entry_id = reference || dataId;
  if (entry_id === '')
    throw new ListFormatError(
      `${fileLabel(where)}: an <${aliasTag.split('_')[0]}> has neither REFERENCE_NUMBER nor DATAID`,
    );
  const name = clean(NAME_PARTS.map((t) => text(node, t)).join(' '));
  // QUALITY "Low": the UN's own word that the alias is not sufficient to identify the person (a
  // bare "Ahmed", "Tariq" on QDi.020, QDi.296): kept apart, never screened on its own.
  const aliasNodes = children(node, aliasTag);
  const isLow = (a: XmlNode) => clean(text(a, 'QUALITY')).toLowerCase() === 'low';
  const aliases = aliasNodes.filter((a) => !isLow(a)).map((a) => clean(text(a, 'ALIAS_NAME')));
  const weak = uniq(aliasNodes.filter(isLow).map((a) => clean(text(a, 'ALIAS_NAME'))));
  // The original-script name lets a request written in that script match too.
  aliases.push(clean(text(node, 'NAME_ORIGINAL_SCRIPT')));
  // A few records publish two names in one field, "NAME ONE (N1) ; NAME TWO (N2)" (CDe.003): the
  // name stays as published, and each part is searchable on its own.
  for (const whole of [name, ...aliases]) if (whole.includes(';')) aliases.push(...namesIn(whole));
  const strong = uniq(aliases).filter((a) => a !== name);
  const weak_aliases = weak.filter((a) => a !== name && !strong.includes(a));
  return {
    entry_id,
    name,
    type,
    programs: uniq([clean(text(node, 'UN_LIST_TYPE'))]),
    aliases: strong,
    ...(weak_aliases.length > 0 ? { weak_aliases } : {}),
  };
}

/**
 * The names of a field that holds several, separated by semicolons; a part ending in its acronym,
 * "GREAT LAKES BUSINESS COMPANY (GLBC)", gives the name without it too.
 */
function namesIn(field: string): string[] {
  return field
    .split(';')
    .map(clean)
    .filter((n) => n !== '')
    .flatMap((n) => {
      const bare = clean(n.replace(/\s*\([^()]*\)$/, ''));
      return bare !== '' && bare !== n ? [n, bare] : [n];
    });
}

/**
 * Parses the UN consolidated sanctions list XML into the common model; `file` is its name as
 * given, for messages.
 */
export function parseUnXml(xml: string | Uint8Array, file?: string): SanctionsList {
  const where = { source: 'un', file, format: 'the UN consolidated list' };
  const root = parseXmlRoot(xml, 'CONSOLIDATED_LIST', where);
  const individuals = children(root, 'INDIVIDUALS').flatMap((g) => children(g, 'INDIVIDUAL'));
  const entities = children(root, 'ENTITIES').flatMap((g) => children(g, 'ENTITY'));
  if (children(root, 'INDIVIDUALS').length === 0 && children(root, 'ENTITIES').length === 0) {
    throw new ListFormatError(`${fileLabel(where)}: neither <INDIVIDUALS> nor <ENTITIES> found`);
  }
  const entries = [
    ...individuals.map((n) => toEntry(n, 'individual', 'INDIVIDUAL_ALIAS', where)),
    ...entities.map((n) => toEntry(n, 'entity', 'ENTITY_ALIAS', where)),
  ];
  const generated = attr(root, 'dateGenerated').trim();
  return { source: 'un', published_at: generated === '' ? null : generated, entries, addresses: [] };
}
