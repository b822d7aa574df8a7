/**
 * JSON text kept as it was received, to be written into a response unchanged. A vendor's webhook
 * body is evidence (CONTRACT §5: an alert's `payload` is the raw body): parsing it into JavaScript
 * values would round `1234567890123456789` to …800, `1e400` to null and `0.1000000000000000055` to
 * 0.1. Node 20 has no JSON.rawJSON, so responses holding one are written by stringifyWithRaw.
 */
export class RawJson {
  constructor(readonly text: string) {}

  /** Elsewhere (a log line, a plain JSON.stringify) it is the parsed value: valid, if rounded. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * JSON.stringify of plain data (objects, arrays, primitives, toJSON) that writes each RawJson's text
 * in place, byte for byte. The text is valid JSON (it was parsed on receipt, and the database's
 * `json` type checked it again), so the result is too.
 */
export function stringifyWithRaw(value: unknown): string {
  return write(value) ?? 'null';
}

function write(v: unknown): string | undefined {
  if (v instanceof RawJson) return v.text;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const withToJson = v as { toJSON?: unknown };
  if (typeof withToJson.toJSON === 'function') return write((withToJson.toJSON as () => unknown).call(v));
  if (Array.isArray(v)) return `[${v.map((x) => write(x) ?? 'null').join(',')}]`;
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    const s = write(x);
    if (s !== undefined) parts.push(`${JSON.stringify(k)}:${s}`);
  }
  return `{${parts.join(',')}}`;
}
