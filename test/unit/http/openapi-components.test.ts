import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withNamedSchemas as named } from '../../../src/http/openapi-components.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON walked by path, untyped by nature.
type Json = Record<string, any>;
const withNamedSchemas = (doc: Json): Json => named(doc);

const error = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'object', properties: { code: { type: 'string' } } } },
};
const person = {
  title: 'Person',
  type: 'object',
  properties: { name: { type: 'string' }, address: { title: 'Address', type: 'object' } },
};

const bodyOf = (schema: object) => ({ requestBody: { content: { 'application/json': { schema } } } });

describe('withNamedSchemas (one statement per named schema in the OpenAPI document)', () => {
  it('states a titled schema once, its inner titled schemas too, and refers to it everywhere', () => {
    const doc = withNamedSchemas({
      paths: {
        '/a': {
          post: bodyOf({
            type: 'object',
            properties: { from: person, to: { anyOf: [person, { type: 'null' }] } },
          }),
        },
        '/b': { post: bodyOf(person) },
      },
    });
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    assert.deepEqual(doc.paths['/a'].post.requestBody.content['application/json'].schema, {
      type: 'object',
      properties: { from: ref('Person'), to: { anyOf: [ref('Person'), { type: 'null' }] } },
    });
    assert.deepEqual(doc.paths['/b'].post.requestBody.content['application/json'].schema, ref('Person'));
    const schemas = doc.components.schemas;
    assert.deepEqual(schemas.Person, {
      ...person,
      properties: { ...person.properties, address: ref('Address') },
    });
    assert.deepEqual(schemas.Address, { title: 'Address', type: 'object' });
  });

  it('refers to a shared schema from its untitled copies, whatever their key order', () => {
    const copy = { properties: error.properties, required: ['error'], type: 'object' };
    const doc = withNamedSchemas({
      components: { schemas: { NestedError: { ...error, title: 'NestedError' } } },
      paths: { '/a': { get: { responses: { 400: { content: { 'application/json': { schema: copy } } } } } } },
    });
    assert.deepEqual(doc.paths['/a'].get.responses[400].content['application/json'].schema, {
      $ref: '#/components/schemas/NestedError',
    });
    // A schema that differs in anything stays where it is.
    const other = { ...error, required: [] };
    const kept = withNamedSchemas({
      components: { schemas: { NestedError: error } },
      paths: { '/a': { post: bodyOf(other) } },
    });
    assert.deepEqual(kept.paths['/a'].post.requestBody.content['application/json'].schema, other);
  });

  it('leaves data alone (an example with a title is not a schema) and titles with spaces', () => {
    const schema = {
      title: 'Travel-rule request',
      type: 'object',
      example: { title: 'Mr', name: 'x' },
      default: { title: 'Sir' },
    };
    const doc = withNamedSchemas({ paths: { '/a': { post: bodyOf(schema) } } });
    assert.deepEqual(doc.paths['/a'].post.requestBody.content['application/json'].schema, schema);
    assert.deepEqual(doc.components.schemas, {});
  });

  it('refuses two different schemas under one name', () => {
    assert.throws(
      () =>
        withNamedSchemas({
          paths: {
            '/a': { post: bodyOf(person) },
            '/b': { post: bodyOf({ ...person, required: ['name'] }) },
          },
        }),
      /two different schemas named Person/,
    );
  });
});
