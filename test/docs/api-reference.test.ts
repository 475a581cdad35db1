import { describe, expect, it } from 'vitest';
import { routes } from '../../src/api/routes.ts';
import { buildOpenApiDocument } from '../../src/http/openapi.ts';
import { pushSendSources, pushSendStatuses } from '../../src/persistence/entities/push-send.ts';
import { filesUnder, readRepositoryFile } from './markdown.ts';

// docs/api.md is the guide callers read; the OpenAPI document, generated from the zod schemas, is the reference. The
// guide must name every operation the document has, and the values a caller meets in answers.

interface Operation {
  method: string;
  path: string;
}

const document = buildOpenApiDocument(routes);
const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

const operations: Operation[] = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  httpMethods.filter((method) => item[method] !== undefined).map((method) => ({ method: method.toUpperCase(), path })),
);

/** An operation is named as `` `METHOD /path` ``, the path as in the OpenAPI document, then a query, a space or the span's end. */
const namedIn = (guide: string, { method, path }: Operation) => {
  const token = `\`${method} ${path}`;
  return [...guide.matchAll(new RegExp(token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'))].some((match) => /^[`?\s]/.test(guide.slice(match.index + token.length)));
};

/** The id prefixes the service gives its records: every `newId('<prefix>')` under src/. */
const idPrefixes = (): string[] =>
  [...new Set(filesUnder('src').filter((path) => path.endsWith('.ts')).flatMap((path) => [...readRepositoryFile(path).matchAll(/\bnewId\('([a-z]+_)'\)/g)].map(([, prefix]) => prefix!)))].sort();

describe('docs/api.md against the OpenAPI document', () => {
  const guide = readRepositoryFile('docs/api.md');

  it('reads every operation of the document', () => {
    expect(operations.length).toBeGreaterThan(80);
    expect(operations).toContainEqual({ method: 'POST', path: '/v1/in/{inboundKey}' });
  });

  it('names every operation, aliases included, as `METHOD /path`', () => {
    expect(operations.filter((operation) => !namedIn(guide, operation)).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  });

  it('would miss an operation named only by an abbreviated path or another method', () => {
    const sample = '| `POST …/{experienceId}/publish` | `GET /healthz` | `POST` or `PUT /abtest/validate?id=` | `GET /filter/getter` |';
    expect(namedIn(sample, { method: 'POST', path: '/accounts/{accountId}/experiences/{experienceId}/publish' })).toBe(false);
    expect(namedIn(sample, { method: 'GET', path: '/healthz' })).toBe(true);
    expect(namedIn(sample, { method: 'PUT', path: '/abtest/validate' })).toBe(true);
    expect(namedIn(sample, { method: 'POST', path: '/abtest/validate' })).toBe(false);
    expect(namedIn(sample, { method: 'GET', path: '/filter/get' })).toBe(false);
  });

  it("names every field of a message's send, as `GET /notification/get` answers it", () => {
    const schema = document.components?.schemas?.NotificationSend;
    const fields = Object.keys(typeof schema === 'object' && 'properties' in schema ? (schema.properties ?? {}) : {});
    expect(fields).toEqual(expect.arrayContaining(['state', 'expired', 'capped', 'quiet', 'conversions', 'conversionRate', 'ratePerMinute', 'sendInLocalTime', 'groups']));
    const sendSection = guide.slice(guide.indexOf('`send` is `{'), guide.indexOf('### `GET /notification/list`'));
    expect(fields.filter((field) => !new RegExp(`\\b${field}\\b`).test(sendSection))).toEqual([]);
  });

  it('names every status and every source of `GET /push/sends`', () => {
    const pushSection = guide.slice(guide.indexOf('`GET /push/sends` takes'));
    const missing = [...pushSendStatuses, ...pushSendSources].filter((value) => !pushSection.includes(`\`${value}\``));
    expect(missing).toEqual([]);
  });

  it('names the prefix of every prefixed id the service makes', () => {
    const prefixes = idPrefixes();
    expect(prefixes).toEqual(expect.arrayContaining(['evt_', 'iev_', 'exp_']));
    expect(prefixes.filter((prefix) => !guide.includes(`\`${prefix}…\``))).toEqual([]);
  });
});
