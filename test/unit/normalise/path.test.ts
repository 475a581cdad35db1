import { describe, expect, it } from 'vitest';
import { detailPath } from '../../../src/domain/ingest/normalise/detail-path.ts';
import { pathSegments, readPath } from '../../../src/sandbox-safe/field-path.ts';
import { payload } from './payloads.ts';

const order = payload('webhook-order-paid');

describe('normalise: readPath', () => {
  it.each([
    ['a top-level field', 'topic', 'orders/paid'],
    ['a nested field', 'order.customer.email', 'jonas@example.de'],
    ['an array element by index', 'order.line_items.1.sku', 'MAP-07'],
    ['the first array element', 'order.line_items.0.quantity', 1],
    ['a $.-prefixed path', '$.order.customer.first_name', 'Jonas'],
    ['a $.-prefixed path with a bracketed index', '$.order.line_items[1].price', '10.00'],
    ['a bracketed index without $.', 'order.line_items[0].title', 'Field guide'],
    ['an array\'s length', 'order.line_items.length', undefined],
    ['a missing top-level field', 'shop', undefined],
    ['a missing nested field', 'order.customer.last_name', undefined],
    ['a step through a string', 'order.name.first', undefined],
    ['an index past the end', 'order.line_items.2.sku', undefined],
    ['a non-numeric step into an array', 'order.line_items.first.sku', undefined],
    ['a zero-padded index', 'order.line_items.01.sku', undefined],
    ['a negative index', 'order.line_items.-1.sku', undefined],
    ['an inherited property', 'order.constructor', undefined],
    ['the prototype', 'order.__proto__', undefined],
    ['an inherited method on an array', 'order.line_items.map', undefined],
  ])('reads %s', (_case, path, expected) => {
    expect(readPath(order, path)).toEqual(expected);
  });

  it('reads the whole payload for "$" and for an empty path', () => {
    expect(readPath(order, '$')).toBe(order);
    expect(readPath(order, '')).toBe(order);
  });

  it('treats numeric keys of an object as keys, not indexes', () => {
    expect(readPath({ scores: { '0': 'zero', '10': 'ten' } }, 'scores.10')).toBe('ten');
  });

  it('returns null values rather than treating them as missing', () => {
    expect(readPath({ order: { note: null } }, 'order.note')).toBeNull();
    expect(readPath({ order: null }, 'order.note')).toBeUndefined();
  });

  it('reads into arrays at the top level and copes with non-objects', () => {
    expect(readPath([{ id: 'a' }, { id: 'b' }], '1.id')).toBe('b');
    expect(readPath('text', 'length')).toBeUndefined();
    expect(readPath(undefined, 'a')).toBeUndefined();
  });
});

describe('normalise: path segments and detail paths', () => {
  it.each([
    ['a.b.0.c', ['a', 'b', '0', 'c']],
    ['$.a.b', ['a', 'b']],
    ['$.items[2].sku', ['items', '2', 'sku']],
    ['$', []],
    ['', []],
  ])('splits %j', (path, expected) => {
    expect(pathSegments(path)).toEqual(expected);
  });

  it.each([
    ['data.id', 'body.data.id'],
    ['$.data.items[3].sku', 'body.data.items.3.sku'],
    ['$', 'body'],
  ])('places %j under body', (path, expected) => {
    expect(detailPath('body', path)).toBe(expected);
  });
});
