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

/** Parses an XML document and returns its root element, checking the root's name. */
export function parseXmlRoot(input: string | Uint8Array, rootName: string, what: string): XmlNode {
  const text = asText(input, what);
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new ListFormatError(
      `${what}: not well-formed XML (${parserMessage(valid.err.msg)}, line ${valid.err.line})`,
    );
  }
  let doc: XmlNode;
  try {
    doc = parser.parse(text) as XmlNode;
  } catch (err) {
    throw new ListFormatError(`${what}: cannot parse XML: ${parserMessage((err as Error).message)}`);
  }
  const roots = Object.keys(doc).filter((k) => !k.startsWith('?') && !k.startsWith('#'));
  if (roots.length !== 1 || roots[0] !== rootName) {
    // The names found are the file's: a few, each cut short.
    const found = roots.slice(0, 3).map((r) => printable(r));
    throw new ListFormatError(`${what}: expected root element <${rootName}>, found <${found.join('>, <')}>`);
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
