/**
 * States each named schema once, under `components.schemas`, and refers to it from everywhere it
 * is used. fastify-swagger copies a schema into every operation that uses it: the IVMS101 person
 * appeared five times in the travel-rule request (a quarter of the document each), and a code
 * generator made an anonymous type of every copy. Named here: a schema whose `title` is an
 * identifier (`Ivms101Person`), and any copy of a shared schema (`app.addSchema`, named by its $id).
 */

type Json = Record<string, unknown>;

/** A title that names a component; titles with spaces only describe their schema. */
const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]+$/;

/** Keys whose values are data, not schemas: left as they are. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys sorted at every level, so that equal schemas give equal text. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys(value[k])]),
  );
}

/** A schema's content, whatever its name: its own title and $id left out. */
function shapeOf(schema: Json): string {
  const { title: _title, $id: _id, ...rest } = schema;
  return JSON.stringify(sortedKeys(rest));
}

/**
 * Replaces every named schema under `paths` and `components.responses` with a $ref to its one
 * statement in `components.schemas`. Inner schemas are named first, so a component refers to the
 * components it contains. Two different schemas under one name are a programming error.
 */
export function withNamedSchemas<T>(doc: T): T {
  const root = doc as Json;
  const components = (isObject(root.components) ? root.components : {}) as Json;
  const schemas = (isObject(components.schemas) ? components.schemas : {}) as Record<string, Json>;
  const nameOfShape = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas))
    if (isObject(schema)) nameOfShape.set(shapeOf(schema), name);

  const named = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(named);
    if (!isObject(node)) return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) out[key] = DATA_KEYS.has(key) ? value : named(value);
    const shape = shapeOf(out);
    const name =
      typeof out.title === 'string' && COMPONENT_NAME.test(out.title) ? out.title : nameOfShape.get(shape);
    if (name === undefined) return out;
    const stated = schemas[name];
    if (stated === undefined) {
      schemas[name] = out;
      nameOfShape.set(shape, name);
    } else if (shapeOf(stated) !== shape) throw new Error(`OpenAPI: two different schemas named ${name}`);
    return { $ref: `#/components/schemas/${name}` };
  };

  root.paths = named(root.paths);
  if (isObject(components.responses)) components.responses = named(components.responses);
  components.schemas = schemas;
  root.components = components;
  return doc;
}
