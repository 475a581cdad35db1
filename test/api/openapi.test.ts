import { describe, expect, inject, it } from 'vitest';
import { routes } from '../../src/api/routes.ts';
import { call, newAccount } from '../support/api.ts';

describe('GET /openapi.json', () => {
  it('documents every route, generated from the route schemas', async () => {
    const response = await call('GET', '/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body;
    expect(document.openapi).toBe('3.1.0');
    for (const route of routes) {
      for (const path of [route.path, ...(route.aliases ?? [])]) {
        const openApiPath = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        expect(document.paths[openApiPath]?.[route.method], `${route.method} ${openApiPath}`).toBeDefined();
      }
    }
    expect(document.components.schemas.Error).toBeDefined();
  });

  it('declares exactly the parameters of each path template, all required', async () => {
    const { body: document } = await call('GET', '/openapi.json');
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      const expected = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      for (const [method, operation] of Object.entries<any>(operations)) {
        const declared = (operation.parameters ?? []).filter((parameter: any) => parameter.in === 'path');
        expect(declared.map((parameter: any) => parameter.name).sort(), `${method} ${path}`).toEqual(expected);
        expect(declared.every((parameter: any) => parameter.required === true), `${method} ${path}`).toBe(true);
      }
    }
  });

  it('carries the request schema of an operation, including its enums and limits', async () => {
    const { body: document } = await call('GET', '/openapi.json');
    const create = document.paths['/notification/create'].post;
    const schemaRef = create.requestBody.content['application/json'].schema.$ref as string;
    const schema = document.components.schemas[schemaRef.split('/').pop()!];
    expect(schema.required).toEqual(expect.arrayContaining(['appId', 'title']));
    expect(schema.properties.action.enum).toEqual(['Open', 'Close']);
    expect(schema.properties.title.maxLength).toBe(200);
    const list = document.paths['/notification/list'].get;
    expect(list.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['appId', 'status', 'limit', 'cursor']),
    );
  });
});

describe('Idempotency-Key in the OpenAPI document', () => {
  it('is declared on every mutating operation of a known caller, and not on the ingest endpoint nor a streamed upload', async () => {
    const { body: document } = await call('GET', '/openapi.json');
    for (const route of routes.filter((candidate) => candidate.method !== 'get')) {
      const operation = document.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')][route.method];
      expect(headersOf(operation).includes('Idempotency-Key'), `${route.method} ${route.path}`).toBe(route.auth !== 'none' && route.streamBody === undefined);
    }
    expect(headersOf(document.paths['/v1/in/{inboundKey}'].post)).not.toContain('Idempotency-Key');
    // The upload's fingerprint would need its whole body in memory.
    expect(headersOf(document.paths['/file/upload'].post)).not.toContain('Idempotency-Key');
    expect(headersOf(document.paths['/job/get'].get)).toEqual([]);
  });
});

describe('Recording files in the OpenAPI document', () => {
  it('takes an upload as raw audio bytes, and documents the recording URL as audio/mp4', async () => {
    const { body: document } = await call('GET', '/openapi.json');
    const upload = document.paths['/file/upload'].post;
    expect(Object.keys(upload.requestBody.content).sort()).toEqual(['application/octet-stream', 'audio/*']);
    expect(upload.requestBody.content['audio/*'].schema).toMatchObject({ type: 'string', format: 'binary' });
    // The artist's take is the same raw body, behind the link's token and no key.
    const take = document.paths['/artist/{token}/takes'].post;
    expect(take.security).toEqual([]);
    expect(take.requestBody.content).toEqual(upload.requestBody.content);
    const play = document.paths['/recordings/{fileId}/{name}'].get;
    expect(play.security).toEqual([]);
    expect(Object.keys(play.responses['206'].content)).toEqual(['audio/mp4']);
    expect(play.responses['302']).toBeDefined();
  });
});

describe('The ingest endpoint in the OpenAPI document', () => {
  it('declares the three Standard Webhooks headers, each required', async () => {
    const { body: document } = await call('GET', '/openapi.json');
    const operation = document.paths['/v1/in/{inboundKey}'].post;
    expect(headersOf(operation)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    const timestamp = operation.parameters.find((parameter: any) => parameter.name === 'webhook-timestamp');
    expect(timestamp).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(timestamp.schema.pattern).toContain('\\d+');
  });
});

const headersOf = (operation: any): string[] =>
  (operation.parameters ?? []).filter((parameter: any) => parameter.in === 'header').map((parameter: any) => parameter.name);

/** Every schema a request can carry (bodies and parameters), with the components they name. */
function requestSchemas(document: any): Array<{ at: string; schema: any }> {
  const found: Array<{ at: string; schema: any }> = [];
  for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(operations)) {
      for (const parameter of operation.parameters ?? []) found.push({ at: `${method} ${path} ${parameter.name}`, schema: parameter.schema });
      const body = operation.requestBody?.content['application/json']?.schema;
      if (body) found.push({ at: `${method} ${path} body`, schema: body });
    }
  }
  return found;
}

/** Walks a schema through its $refs (each component once), calling `visit` on every node. */
function walkSchema(document: any, schema: any, visit: (node: any) => void, seen = new Set<string>()): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return;
    seen.add(schema.$ref);
    walkSchema(document, document.components.schemas[schema.$ref.split('/').pop()], visit, seen);
    return;
  }
  visit(schema);
  for (const value of Object.values(schema)) {
    if (Array.isArray(value)) for (const item of value) walkSchema(document, item, visit, seen);
    else walkSchema(document, value, visit, seen);
  }
}

describe('GET /openapi.json says exactly what the validators accept', () => {
  const nulFree = '^[^\\u0000]*$';

  it('gives every request string the NUL-free pattern (a format such as uuid excludes NUL already)', async () => {
    const { body: document } = await call('GET', '/openapi.json');
    const strings: string[] = [];
    for (const { at, schema } of requestSchemas(document)) {
      walkSchema(document, schema, (node) => {
        if (node.type !== 'string' || node.format !== undefined || node.enum !== undefined) return;
        strings.push(at);
        const patterns = [node.pattern, ...(node.allOf ?? []).map((part: any) => part.pattern)];
        expect(patterns, `${at}: ${JSON.stringify(node)}`).toContain(nulFree);
      });
    }
    expect(strings.length).toBeGreaterThan(50);
  });

  it('describes free-form values (about, attributes, raw) as JsonValue, whose strings and keys are NUL-free', async () => {
    const { body: document } = await call('GET', '/openapi.json');
    const schemas = document.components.schemas;
    expect(schemas.CreateNotification.properties.about.items).toEqual({ $ref: '#/components/schemas/JsonValue' });
    expect(schemas.LinkVisitor.properties.attributes.additionalProperties).toEqual({ $ref: '#/components/schemas/JsonValue' });
    const [, string, , object] = schemas.JsonValue.anyOf;
    expect(string).toEqual({ type: 'string', pattern: nulFree });
    expect(object.propertyNames.pattern).toBe(nulFree);
  });

  it('states the object-level limits: at least one field to update, at most 100 mapping entries', async () => {
    const { body: { components: { schemas } } } = await call('GET', '/openapi.json');
    expect(schemas.UpdateConnection.minProperties).toBe(1);
    expect(schemas.UpdateEndpoint.minProperties).toBe(1);
    expect(schemas.CreateConnection.properties.mapping.maxProperties).toBe(100);
  });

  it('counts the characters as sent against maxLength, and refuses a blank name the pattern refuses', async () => {
    const token = inject('adminToken');
    const padded = await call('POST', '/admin/accounts', { token, body: { name: ` ${'n'.repeat(199)} ` } });
    expect(padded.status, JSON.stringify(padded.body)).toBe(400);
    const blank = await call('POST', '/admin/accounts', { token, body: { name: ' \t\u3000 ' } });
    expect(blank.body.error.details).toEqual([{ path: 'body.name', message: 'must not be blank' }]);
    const trimmed = await call('POST', '/admin/accounts', { token, body: { name: '  Acme  ' } });
    expect(trimmed.status).toBe(201);
    expect(trimmed.body.name).toBe('Acme');
  });

  it('accepts as an e-mail address only what format: email accepts', async () => {
    const account = await newAccount();
    const link = (email: string) =>
      call('POST', `/accounts/${account.accountId}/visitors`, { token: account.apiKey, body: { clientUserId: 'u1', endpoints: { email } } });
    for (const email of ['a@h-.example.com', `${'x'.repeat(65)}@example.com`, `a@${'x'.repeat(64)}.com`, 'a..b@example.com']) {
      expect((await link(email)).status, email).toBe(400);
    }
    expect((await link(`${'x'.repeat(64)}@${'x'.repeat(63)}.example.com`)).status).toBeLessThan(300);
  });
});
