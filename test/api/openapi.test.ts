import { describe, expect, it } from 'vitest';
import { routes } from '../../src/api/routes.ts';
import { call } from '../support/api.ts';

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
  it('is declared on every mutating operation of a known caller, and not on the ingest endpoint', async () => {
    const { body: document } = await call('GET', '/openapi.json');
    const headersOf = (operation: any) => (operation.parameters ?? []).filter((parameter: any) => parameter.in === 'header').map((parameter: any) => parameter.name);
    for (const route of routes.filter((candidate) => candidate.method !== 'get')) {
      const operation = document.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')][route.method];
      expect(headersOf(operation), `${route.method} ${route.path}`).toEqual(route.auth === 'none' ? [] : ['Idempotency-Key']);
    }
    expect(headersOf(document.paths['/v1/in/{inboundKey}'].post)).toEqual([]);
    expect(headersOf(document.paths['/job/get'].get)).toEqual([]);
  });
});
