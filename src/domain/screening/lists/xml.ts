import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ListFormatError } from './model.ts';
import { asText, parserMessage, printable } from './text.ts';

/** A parsed XML element: attributes as `@_name`, text as `#text`, children by tag name. */
export type XmlNode = { [key: string]: unknown };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Identifiers such as uid 007 or logicalId must stay strings.
  parseTagValue: false,
  parseAttributeValue: false,
  removeNSPrefix: true,
  trimValues: true,
  ignoreDeclaration: true,
});

/** How a loader names its file in messages: `eu: list.xml is not the EU consolidated list: …`. */
export interface XmlFile {
  source: string;
  /** The file's name as the operator gave it; "the file" when the caller has none. */
  file?: string;
  /** What the file should be, e.g. "the EU consolidated list". */
  format: string;
}

/** `eu: list.xml`, the start of every message about the file. */
export const fileLabel = (f: XmlFile) => `${f.source}: ${printable(f.file ?? 'the file', 80)}`;

/**
 * The validator's complaint in words an operator reads, to follow "not well-formed XML". At the end
 * of a file cut short it lists the elements left open as a JSON array, said to be at line 1
 * ("Invalid '[    \"sdnList\",    \"sdnEntry\"…' found."): the innermost is named, with a few
 * around it.
 */
function wellFormedReason(err: { code: string; msg: string; line: number }): string {
  const open = /^Invalid '\[(.*)\]' found\.$/s.exec(err.msg);
  const names = open ? [...open[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => printable(m[1]!)) : [];
  if (names.length > 0) {
    const inner = names.at(-1)!;
    const outer = names.slice(-4, -1);
    const more = names.length > 4 ? '…, ' : '';
    const around = outer.length > 0 ? ` (inside ${more}<${outer.join('>, <')}>)` : '';
    return `: unclosed element <${inner}> at end of file${around}; is the file cut short?`;
  }
  const single = /^Unclosed tag '(.*)'\.$/s.exec(err.msg);
  if (single) return `: unclosed element <${printable(single[1]!)}> at end of file; is the file cut short?`;
  return ` at line ${err.line}: ${parserMessage(err.msg)}`;
}

/** Parses an XML document and returns its root element, checking the root's name. */
export function parseXmlRoot(input: string | Uint8Array, rootName: string, f: XmlFile): XmlNode {
  const label = fileLabel(f);
  const text = asText(input, label);
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    throw new ListFormatError(`${label} is not well-formed XML${wellFormedReason(valid.err)}`);
  let doc: XmlNode;
  try {
    doc = parser.parse(text) as XmlNode;
  } catch (err) {
    throw new ListFormatError(`${label}: cannot parse XML: ${parserMessage((err as Error).message)}`);
  }
  const roots = Object.keys(doc).filter((k) => !k.startsWith('?') && !k.startsWith('#'));
  if (roots.length !== 1 || roots[0] !== rootName) {
    // The names found are the file's: a few, each cut short.
    const found = roots.slice(0, 3).map((r) => printable(r));
    throw new ListFormatError(
      `${label} is not ${f.format}: expected root element <${rootName}>, found <${found.join('>, <')}>`,
    );
  }
  const root = doc[rootName];
  // An empty root parses as '' — treat it as an element without children.
  return root !== null && typeof root === 'object' ? (root as XmlNode) : {};
}

/** Children with a tag name, always as an array of elements. */
export function children(node: unknown, tag: string): XmlNode[] {
  if (node === null || typeof node !== 'object') return [];
  const value = (node as XmlNode)[tag];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  // A bare `<TAG>text</TAG>` parses as a string; wrap it so callers see one shape.
  return list.map((v) => (v !== null && typeof v === 'object' ? (v as XmlNode) : { '#text': v }));
}

/** Text content of a child element (or of the node itself when tag is omitted); '' when absent. */
export function text(node: unknown, tag?: string): string {
  if (node === null || node === undefined) return '';
  if (tag !== undefined) {
    const first = children(node, tag)[0];
    return first === undefined ? '' : text(first);
  }
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return String(node);
  const inner = (node as XmlNode)['#text'];
  return inner === undefined || inner === null ? '' : String(inner);
}

/** An attribute value; '' when absent. */
export function attr(node: unknown, name: string): string {
  if (node === null || typeof node !== 'object') return '';
  const value = (node as XmlNode)[`@_${name}`];
  return value === undefined || value === null ? '' : String(value);
}
