import {
  type EntryType,
  type ListedAddress,
  ListFormatError,
  listedAddress,
  type SanctionsEntry,
  type SanctionsList,
} from './model.ts';
import { extractRemarkAddresses } from './remarks.ts';
import { clean, uniq } from './text.ts';
import { attr, children, fileLabel, parseXmlRoot, text, type XmlNode } from './xml.ts';

// EU Consolidated Financial Sanctions List, XML 1.1 (namespace http://eu.europa.ec/fpi/fsd/export):
//   <export generationDate="…"><sanctionEntity logicalId="…" euReferenceNumber="EU.…">
//     <regulation programme="…"/> <subjectType code="person|enterprise"/>
//     <nameAlias wholeName="…" firstName="…" lastName="…" strong="true|false"/>… <remark>…</remark>
//     <identification identificationTypeCode="…" identificationTypeDescription="…" number="…"/>…
// The EU format has no element for digital-currency addresses. An identification whose type code
// or description names one (e.g. description "Digital Currency Address - XBT") is taken as one,
// as is an OFAC-style "Digital Currency Address - <TICKER> <address>" item in a remark.

const CRYPTO_TYPE = /digital.?currency|crypto|virtual.?(currency|asset)|wallet|blockchain/i;
const TICKER = /Digital Currency Address\s*-\s*([A-Za-z0-9]+)/i;

function entryType(code: string): EntryType {
  const c = code.trim().toLowerCase();
  if (c === 'person') return 'individual';
  if (c === 'enterprise') return 'entity';
  return 'other';
}

function nameOf(alias: XmlNode): string {
  const whole = clean(attr(alias, 'wholeName'));
  if (whole !== '') return whole;
  return clean(['firstName', 'middleName', 'lastName'].map((a) => attr(alias, a)).join(' '));
}

function cryptoAddresses(node: XmlNode, entry_id: string): ListedAddress[] {
  const out: ListedAddress[] = [];
  for (const id of children(node, 'identification')) {
    const code = attr(id, 'identificationTypeCode');
    const description = attr(id, 'identificationTypeDescription');
    const number = clean(attr(id, 'number'));
    if (number === '' || !(CRYPTO_TYPE.test(code) || CRYPTO_TYPE.test(description))) continue;
    const ticker = (TICKER.exec(description) ?? TICKER.exec(code))?.[1]?.toUpperCase() ?? '';
    out.push(listedAddress(entry_id, ticker, number));
  }
  for (const remark of children(node, 'remark')) {
    for (const { ticker, address } of extractRemarkAddresses(text(remark))) {
      out.push(listedAddress(entry_id, ticker, address));
    }
  }
  return out;
}

/**
 * Parses the EU consolidated financial sanctions list XML into the common model; `file` is its
 * name as given, for messages.
 */
export function parseEuXml(xml: string | Uint8Array, file?: string): SanctionsList {
  const where = { source: 'eu', file, format: 'the EU consolidated list' };
  const root = parseXmlRoot(xml, 'export', where);
  const entries: SanctionsEntry[] = [];
  const addresses: ListedAddress[] = [];
  for (const node of children(root, 'sanctionEntity')) {
    const entry_id = clean(attr(node, 'euReferenceNumber')) || clean(attr(node, 'logicalId'));
    if (entry_id === '')
      throw new ListFormatError(
        `${fileLabel(where)}: a <sanctionEntity> has no euReferenceNumber or logicalId`,
      );
    // strong="false" marks a weak alias (too generic to identify the party): kept apart, never
    // screened on its own. The name is the first strong one (the first of all when none is).
    const all = children(node, 'nameAlias');
    const isWeak = (a: XmlNode) => attr(a, 'strong').trim().toLowerCase() === 'false';
    const strong = uniq(all.filter((a) => !isWeak(a)).map(nameOf));
    const weak = uniq(all.filter(isWeak).map(nameOf)).filter((n) => !strong.includes(n));
    const [name = '', ...aliases] = strong.length > 0 ? strong : weak.splice(0, 1);
    entries.push({
      entry_id,
      name,
      type: entryType(attr(children(node, 'subjectType')[0], 'code')),
      programs: uniq(children(node, 'regulation').map((r) => clean(attr(r, 'programme')))),
      aliases,
      ...(weak.length > 0 ? { weak_aliases: weak } : {}),
    });
    addresses.push(...cryptoAddresses(node, entry_id));
  }
  const generated = attr(root, 'generationDate').trim();
  return { source: 'eu', published_at: generated === '' ? null : generated, entries, addresses };
}
