import {
  type EntryType,
  type ListedAddress,
  ListFormatError,
  listedAddress,
  type SanctionsEntry,
  type SanctionsList,
} from './model.ts';
import { clean, quoted, uniq } from './text.ts';
import { children, fileLabel, parseXmlRoot, text, type XmlNode } from './xml.ts';

// sdn.xml (namespace https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML,
// formerly http://tempuri.org/sdnList.xsd):
//   <sdnList><publshInformation><Publish_Date>MM/DD/YYYY</Publish_Date>…</publshInformation>
//   <sdnEntry><uid/><firstName/><lastName/><sdnType>Individual|Entity|Vessel|Aircraft</sdnType>
//     <programList><program/>…</programList>
//     <akaList><aka><category>strong|weak</category><firstName/><lastName/></aka>…</akaList>
//     <idList><id><idType>Digital Currency Address - XBT</idType><idNumber>…</idNumber></id>…</idList>
//   </sdnEntry>…</sdnList>
// ("publshInformation" is OFAC's own spelling.)

const DIGITAL_CURRENCY = /^Digital Currency Address\s*-\s*([A-Za-z0-9]+)\s*$/i;

/** OFAC's `MM/DD/YYYY` to ISO `YYYY-MM-DD`; other forms are kept as published. */
export function ofacDate(value: string): string | null {
  const v = value.trim();
  if (v === '') return null;
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v);
  if (!m) return v;
  return `${m[3]}-${m[1]!.padStart(2, '0')}-${m[2]!.padStart(2, '0')}`;
}

/** OFAC writes individuals `LAST, First`, as in the CSV, so names compare across formats. */
function personName(node: XmlNode): string {
  const last = clean(text(node, 'lastName'));
  const first = clean(text(node, 'firstName'));
  return first === '' ? last : last === '' ? first : `${last}, ${first}`;
}

function entryType(sdnType: string): EntryType {
  const t = sdnType.trim().toLowerCase();
  if (t === 'individual' || t === 'entity' || t === 'vessel' || t === 'aircraft') return t;
  return 'other';
}

/** The parsed list, with what the import should be told of (a Record_Count off the mark). */
export type OfacXmlResult = SanctionsList & { warnings: string[] };

/**
 * Parses OFAC's `sdn.xml` into the common model; `file` is its name as given, for messages. A file
 * holding fewer entries than its own Record_Count states is refused (see checkRecordCount).
 */
export function parseOfacXml(xml: string | Uint8Array, file?: string): OfacXmlResult {
  const where = { source: 'ofac', file, format: 'an OFAC sdn.xml' };
  const root = parseXmlRoot(xml, 'sdnList', where);
  const publish = children(root, 'publshInformation')[0];
  const entries: SanctionsEntry[] = [];
  const addresses: ListedAddress[] = [];
  const nodes = children(root, 'sdnEntry');
  for (const node of nodes) {
    const entry_id = clean(text(node, 'uid'));
    if (entry_id === '') throw new ListFormatError(`${fileLabel(where)}: an <sdnEntry> has no <uid>`);
    const programs = children(node, 'programList').flatMap((l) =>
      children(l, 'program').map((p) => clean(text(p))),
    );
    // A "weak" a.k.a. is, in OFAC's words, a relatively broad or generic alias that may generate
    // a large volume of false hits: kept apart, never screened on its own.
    const akas = children(node, 'akaList').flatMap((l) => children(l, 'aka'));
    const isWeak = (a: XmlNode) => clean(text(a, 'category')).toLowerCase() === 'weak';
    const aliases = uniq(akas.filter((a) => !isWeak(a)).map(personName));
    const weak_aliases = uniq(akas.filter(isWeak).map(personName)).filter((a) => !aliases.includes(a));
    entries.push({
      entry_id,
      name: personName(node),
      type: entryType(text(node, 'sdnType')),
      programs: uniq(programs),
      aliases,
      ...(weak_aliases.length > 0 ? { weak_aliases } : {}),
    });
    for (const id of children(node, 'idList').flatMap((l) => children(l, 'id'))) {
      const m = DIGITAL_CURRENCY.exec(clean(text(id, 'idType')));
      const address = clean(text(id, 'idNumber'));
      if (m && address !== '') addresses.push(listedAddress(entry_id, m[1]!.toUpperCase(), address));
    }
  }
  if (entries.length === 0 && publish === undefined) {
    throw new ListFormatError(`${fileLabel(where)}: no <sdnEntry> and no <publshInformation>`);
  }
  const warnings = checkRecordCount(fileLabel(where), nodes.length, text(publish, 'Record_Count'));
  return {
    source: 'ofac',
    published_at: ofacDate(text(publish, 'Publish_Date')),
    entries,
    addresses,
    warnings,
  };
}

const records = (n: number) => `${n} <sdnEntry> record${n === 1 ? '' : 's'}`;

/**
 * OFAC states in Record_Count how many sdnEntry records the file holds, so that a consumer can
 * tell an incomplete file: a download cut short at an entry and closed again, or a copy trimmed by
 * hand, would unlist every party left out, whose addresses would then screen clean. Fewer entries
 * than stated is refused; more, or a count that cannot be read, is warned of (nothing is missing).
 */
function checkRecordCount(label: string, read: number, stated: string): string[] {
  const value = clean(stated).replace(/,/g, '');
  if (value === '') return [];
  if (!/^\d+$/.test(value))
    return [
      `${label}: Record_Count ${quoted(stated)} is not a number; the entries were not counted against it`,
    ];
  const count = Number(value);
  if (read < count)
    throw new ListFormatError(
      `${label} holds ${records(read)}, fewer than its Record_Count states (${count}): the file is incomplete; download it again`,
    );
  return read > count
    ? [`${label} holds ${records(read)}, more than its Record_Count states (${count})`]
    : [];
}
