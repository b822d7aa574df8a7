import {
  type EntryType,
  type ListedAddress,
  ListFormatError,
  listedAddress,
  type SanctionsEntry,
  type SanctionsList,
} from './model.ts';
import { clean, uniq } from './text.ts';
import { children, parseXmlRoot, text, type XmlNode } from './xml.ts';

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

/** Parses OFAC's `sdn.xml` into the common model. */
export function parseOfacXml(xml: string | Uint8Array): SanctionsList {
  const root = parseXmlRoot(xml, 'sdnList', 'OFAC sdn.xml');
  const publish = children(root, 'publshInformation')[0];
  const entries: SanctionsEntry[] = [];
  const addresses: ListedAddress[] = [];
  for (const node of children(root, 'sdnEntry')) {
    const entry_id = clean(text(node, 'uid'));
    if (entry_id === '') throw new ListFormatError('OFAC sdn.xml: an sdnEntry has no uid');
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
    throw new ListFormatError('OFAC sdn.xml: no sdnEntry and no publshInformation');
  }
  return { source: 'ofac', published_at: ofacDate(text(publish, 'Publish_Date')), entries, addresses };
}
