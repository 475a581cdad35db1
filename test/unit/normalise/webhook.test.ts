import { describe, expect, it } from 'vitest';
import { normalise } from '../../../src/domain/ingest/normalise/index.ts';
import { changed, now, nowIso, onlyEvent, payload } from './payloads.ts';

// A shop's "order paid" webhook, mapped the way an operator would set the connection up.
const mapping = {
  messageId: 'id',
  eventType: 'topic',
  occurredAt: 'created_at',
  clientUserId: '$.order.customer.id',
  email: 'order.customer.email',
  phone: 'order.customer.phone',
  orderName: 'order.name',
  total: '$.order.total_price',
  firstSku: '$.order.line_items[0].sku',
  secondQuantity: 'order.line_items.1.quantity',
  tags: 'order.customer.tags',
};

const webhook = (body: unknown, map: Record<string, string> = mapping) => normalise('webhook', body, map, { now });

describe('normalise: webhook', () => {
  it('builds the envelope from the mapping, converting numeric ids to strings', () => {
    const body = payload('webhook-order-paid');
    expect(webhook(body)).toEqual({
      ok: true,
      events: [
        {
          version: '1',
          messageId: '5318008',
          occurredAt: '2026-04-02T14:45:12.000Z',
          eventType: 'orders/paid',
          clientUserId: '7290348191811',
          attributes: { orderName: '#1089', total: '54.90', firstSku: 'BOOK-HB-02', secondQuantity: 2, tags: 'vip, newsletter' },
          endpoints: { email: 'jonas@example.de', phone: '+49 30 901820' },
          raw: body,
        },
      ],
    });
  });

  it('needs only messageId and eventType mapped; the arrival time stands in for occurredAt', () => {
    const event = onlyEvent(webhook(payload('webhook-order-paid'), { messageId: 'id', eventType: 'topic' }));
    expect(event).toEqual({ version: '1', messageId: '5318008', occurredAt: nowIso, eventType: 'orders/paid', raw: payload('webhook-order-paid') });
  });

  it.each([
    ['a string', 'ord_5531', 'ord_5531'],
    ['a whole number', 5318008, '5318008'],
    ['zero', 0, '0'],
    ['the largest safe integer', Number.MAX_SAFE_INTEGER, '9007199254740991'],
  ])('accepts a messageId that is %s', (_case, id, expected) => {
    expect(onlyEvent(webhook(changed('webhook-order-paid', { id }))).messageId).toBe(expected);
  });

  it('accepts a numeric eventType and clientUserId as text', () => {
    const event = onlyEvent(webhook(changed('webhook-order-paid', { topic: 201, 'order.customer.id': 77 })));
    expect([event.eventType, event.clientUserId]).toEqual(['201', '77']);
  });

  it.each([
    ['an ISO date-time with an offset', '2026-04-02T16:45:12+02:00', '2026-04-02T14:45:12.000Z'],
    ['an ISO date-time in UTC with milliseconds', '2026-04-02T14:45:12.345Z', '2026-04-02T14:45:12.345Z'],
    ['epoch seconds', 1775141112, '2026-04-02T14:45:12.000Z'],
    ['fractional epoch seconds', 1775141112.5, '2026-04-02T14:45:12.500Z'],
    ['epoch seconds finer than a millisecond, rounded', 1775141112.0006, '2026-04-02T14:45:12.001Z'],
    ['epoch milliseconds', 1775141112345, '2026-04-02T14:45:12.345Z'],
    ['the epoch itself', 0, '1970-01-01T00:00:00.000Z'],
  ])('reads occurredAt given as %s', (_case, createdAt, expected) => {
    expect(onlyEvent(webhook(changed('webhook-order-paid', { created_at: createdAt }))).occurredAt).toBe(expected);
  });

  it.each([
    ['no messageId mapping', { messageId: undefined }, 'mapping.messageId', /mapping must define messageId/],
    ['no eventType mapping', { eventType: undefined }, 'mapping.eventType', /mapping must define eventType/],
  ])('rejects a connection with %s', (_case, mappingChanges, path, message) => {
    const result = webhook(payload('webhook-order-paid'), changed(mapping, mappingChanges) as Record<string, string>);
    expect(result).toEqual({ ok: false, details: [{ path, message: expect.stringMatching(message) }] });
  });

  it.each([
    ['a missing messageId', { id: undefined }, 'body.id', 'is required: the connection maps messageId here'],
    ['a null messageId', { id: null }, 'body.id', 'is required: the connection maps messageId here'],
    ['an empty messageId', { id: '' }, 'body.id', 'must not be empty'],
    ['a boolean messageId', { id: true }, 'body.id', /must be a string or a whole number/],
    ['an object as messageId', { id: { value: 1 } }, 'body.id', /must be a string or a whole number/],
    ['a fractional messageId', { id: 12.5 }, 'body.id', /must be a string or a whole number/],
    ['a messageId too large to be exact', { id: 2 ** 53 }, 'body.id', /send larger ids as strings/],
    ['a messageId of 256 characters', { id: 'm'.repeat(256) }, 'body.id', 'must be at most 255 characters'],
    ['a missing eventType', { topic: undefined }, 'body.topic', 'is required: the connection maps eventType here'],
    ['an eventType of 201 characters', { topic: 't'.repeat(201) }, 'body.topic', 'must be at most 200 characters'],
    ['a missing occurredAt', { created_at: undefined }, 'body.created_at', 'is required: the connection maps occurredAt here'],
    ['an occurredAt that is not a date', { created_at: 'last Tuesday' }, 'body.created_at', /ISO-8601 date-time with a time zone/],
    ['an occurredAt without a time zone', { created_at: '2026-04-02 16:45:12' }, 'body.created_at', /ISO-8601/],
    ['an occurredAt as a digit string', { created_at: '1775141112' }, 'body.created_at', /ISO-8601/],
    ['a negative epoch', { created_at: -1 }, 'body.created_at', /epoch seconds or milliseconds/],
    ['an epoch past the year 9999', { created_at: 253402300800000 }, 'body.created_at', /epoch seconds or milliseconds/],
    ['a clientUserId that is an object', { 'order.customer.id': { gid: 1 } }, 'body.order.customer.id', /must be a string or a whole number/],
    ['a clientUserId of 256 characters', { 'order.customer.id': 'c'.repeat(256) }, 'body.order.customer.id', 'must be at most 255 characters'],
    ['an invalid e-mail', { 'order.customer.email': 'jonas@' }, 'body.order.customer.email', 'must be an e-mail address'],
    ['an e-mail that is not a string', { 'order.customer.email': ['jonas@example.de'] }, 'body.order.customer.email', 'must be an e-mail address'],
    ['a phone with letters', { 'order.customer.phone': 'ask reception' }, 'body.order.customer.phone', /must be a phone number/],
  ])('rejects %s with a detail at the mapped path', (_case, changes, path, message) => {
    const result = webhook(changed('webhook-order-paid', changes));
    expect(result).toEqual({ ok: false, details: [{ path, message: expect.stringMatching(message) }] });
  });

  it('points details for $.-prefixed and bracketed mappings at the plain body path', () => {
    const result = webhook(changed('webhook-order-paid', { 'order.line_items.1.sku': '' }), {
      messageId: '$.order.line_items[1].sku',
      eventType: 'topic',
    });
    expect(result).toEqual({ ok: false, details: [{ path: 'body.order.line_items.1.sku', message: 'must not be empty' }] });
  });

  it('reports every problem in one answer', () => {
    const result = webhook(changed('webhook-order-paid', { id: undefined, created_at: 'soon', 'order.customer.email': 'nope' }), {
      ...mapping,
      eventType: undefined as unknown as string,
    });
    expect(result.ok || result.details.map((detail) => detail.path)).toEqual([
      'body.id',
      'mapping.eventType',
      'body.created_at',
      'body.order.customer.email',
    ]);
  });

  it('leaves out a mapped clientUserId, e-mail or phone the payload does not carry', () => {
    const body = changed('webhook-order-paid', { 'order.customer': undefined });
    const event = onlyEvent(webhook(body));
    expect(event).not.toHaveProperty('clientUserId');
    expect(event).not.toHaveProperty('endpoints');
    expect(event.attributes).toEqual({ orderName: '#1089', total: '54.90', firstSku: 'BOOK-HB-02', secondQuantity: 2 });
  });

  it.each([
    ['an empty string', ''],
    ['null', null],
  ])('treats a clientUserId that is %s as anonymous', (_case, id) => {
    expect(onlyEvent(webhook(changed('webhook-order-paid', { 'order.customer.id': id })))).not.toHaveProperty('clientUserId');
  });

  it('accepts a phone number sent as a JSON number', () => {
    expect(onlyEvent(webhook(changed('webhook-order-paid', { 'order.customer.phone': 4930901820 }))).endpoints).toEqual({
      email: 'jonas@example.de',
      phone: '4930901820',
    });
  });

  it('keeps mapped nulls and whole objects as attributes, skips paths that lead nowhere', () => {
    const body = changed('webhook-order-paid', { 'order.note': null });
    const map = { messageId: 'id', eventType: 'topic', note: 'order.note', lines: 'order.line_items', gone: 'order.refunds.0' };
    expect(onlyEvent(webhook(body, map)).attributes).toEqual({
      note: null,
      lines: [
        { sku: 'BOOK-HB-02', title: 'Field guide', quantity: 1, price: '34.90' },
        { sku: 'MAP-07', title: 'Trail map', quantity: 2, price: '10.00' },
      ],
    });
  });

  it('stores an attribute named __proto__ as data, without touching the prototype', () => {
    // An object literal's "__proto__" would set the prototype, so build the mapping the way JSON.parse does.
    const map = JSON.parse('{"messageId":"id","eventType":"topic","__proto__":"order.name"}') as Record<string, string>;
    const attributes = onlyEvent(webhook(payload('webhook-order-paid'), map)).attributes ?? {};
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(attributes, '__proto__')?.value).toBe('#1089');
  });

  it.each([
    ['an array', [payload('webhook-order-paid')]],
    ['a string', 'orders/paid'],
    ['null', null],
  ])('rejects a body that is %s', (_case, body) => {
    expect(webhook(body)).toEqual({ ok: false, details: [{ path: 'body', message: 'must be a JSON object' }] });
  });
});
