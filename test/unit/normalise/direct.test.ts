import { describe, expect, it } from 'vitest';
import { normalise } from '../../../src/domain/ingest/normalise/index.ts';
import { changed, now, onlyEvent, type Payload } from './payloads.ts';

// A direct sender posts our own envelope; what a backend service would send after an order is paid.
const envelope: Payload = {
  version: '1',
  messageId: 'evt_01JQ4X8Z7N0R2B6Y5M3K1H9T4F',
  occurredAt: '2026-04-02T16:45:12.250+02:00',
  eventType: 'order.paid',
  clientUserId: 'cust_7781',
  attributes: { orderId: 'ord_1201', total: 54.9, currency: 'EUR', items: [{ sku: 'BOOK-HB-02' }] },
  endpoints: { email: 'jonas@example.de', phone: '+49 30 901820' },
  raw: { source: 'billing', invoice: { id: 'in_3391', lines: 2 } },
};

const direct = (body: unknown, mapping: Record<string, string> = {}) => normalise('direct', body, mapping, { now });

describe('normalise: direct', () => {
  it('passes a complete envelope through with occurredAt in UTC', () => {
    expect(direct(envelope)).toEqual({ ok: true, events: [{ ...envelope, occurredAt: '2026-04-02T14:45:12.250Z' }] });
  });

  it('accepts the smallest envelope and adds nothing to it', () => {
    const minimal = { version: '1', messageId: 'm-1', occurredAt: '2026-04-02T14:45:12Z', eventType: 'signup' };
    expect(direct(minimal)).toEqual({ ok: true, events: [{ ...minimal, occurredAt: '2026-04-02T14:45:12.000Z' }] });
  });

  it.each([
    ['Z', '2026-01-01T10:00:00Z', '2026-01-01T10:00:00.000Z'],
    ['a positive offset', '2026-01-01T10:00:00+05:30', '2026-01-01T04:30:00.000Z'],
    ['a negative offset crossing midnight', '2025-12-31T22:30:00-03:00', '2026-01-01T01:30:00.000Z'],
    ['milliseconds', '2026-01-01T10:00:00.5+01:00', '2026-01-01T09:00:00.500Z'],
    ['more digits than milliseconds', '2026-01-01T10:00:00.123456Z', '2026-01-01T10:00:00.123Z'],
    ['a leap day', '2028-02-29T00:00:00+00:00', '2028-02-29T00:00:00.000Z'],
  ])('normalises occurredAt with %s to UTC', (_case, occurredAt, expected) => {
    expect(onlyEvent(direct({ ...envelope, occurredAt })).occurredAt).toBe(expected);
  });

  it.each([
    ['version as a number', { version: 1 }, 'body.version', 'must be the string "1"'],
    ['version 2', { version: '2' }, 'body.version', 'must be the string "1"'],
    ['no version', { version: undefined }, 'body.version', 'must be the string "1"'],
    ['no messageId', { messageId: undefined }, 'body.messageId', 'is required'],
    ['an empty messageId', { messageId: '' }, 'body.messageId', 'must not be empty'],
    ['a numeric messageId', { messageId: 42 }, 'body.messageId', 'must be a string'],
    ['a messageId of 256 characters', { messageId: 'm'.repeat(256) }, 'body.messageId', 'must be at most 255 characters'],
    ['no occurredAt', { occurredAt: undefined }, 'body.occurredAt', 'is required'],
    ['occurredAt as epoch seconds', { occurredAt: 1767261600 }, 'body.occurredAt', 'must be a string'],
    ['occurredAt that is not a date', { occurredAt: 'yesterday' }, 'body.occurredAt', /ISO-8601 date-time with a time zone/],
    ['occurredAt without a time zone', { occurredAt: '2026-01-01T10:00:00' }, 'body.occurredAt', /ISO-8601/],
    ['occurredAt as a bare date', { occurredAt: '2026-01-01' }, 'body.occurredAt', /ISO-8601/],
    ['occurredAt on a day that does not exist', { occurredAt: '2026-02-30T10:00:00Z' }, 'body.occurredAt', /ISO-8601/],
    ['occurredAt in RFC 2822 form', { occurredAt: 'Thu, 01 Jan 2026 10:00:00 GMT' }, 'body.occurredAt', /ISO-8601/],
    ['no eventType', { eventType: undefined }, 'body.eventType', 'is required'],
    ['an empty eventType', { eventType: '' }, 'body.eventType', 'must not be empty'],
    ['an eventType of 201 characters', { eventType: 'e'.repeat(201) }, 'body.eventType', 'must be at most 200 characters'],
    ['an empty clientUserId', { clientUserId: '' }, 'body.clientUserId', 'must not be empty'],
    ['a numeric clientUserId', { clientUserId: 7781 }, 'body.clientUserId', 'must be a string'],
    ['a clientUserId of 256 characters', { clientUserId: 'u'.repeat(256) }, 'body.clientUserId', 'must be at most 255 characters'],
    ['attributes as an array', { attributes: ['vip'] }, 'body.attributes', 'must be an object'],
    ['attributes as a string', { attributes: 'vip' }, 'body.attributes', 'must be an object'],
    ['endpoints as a string', { endpoints: 'jonas@example.de' }, 'body.endpoints', 'must be an object'],
    ['an invalid e-mail', { 'endpoints.email': 'jonas at example.de' }, 'body.endpoints.email', 'must be an e-mail address'],
    ['a phone with letters', { 'endpoints.phone': '+49 30 CALL-ME' }, 'body.endpoints.phone', /must be a phone number/],
    ['a phone that is too short', { 'endpoints.phone': '1234' }, 'body.endpoints.phone', /must be a phone number/],
    ['a phone as a number', { 'endpoints.phone': 4930901820 }, 'body.endpoints.phone', 'must be a string'],
    ['an unknown endpoint kind', { 'endpoints.apns': 'token' }, 'body.endpoints.apns', 'is not a known field'],
    ['raw as an array', { raw: [1, 2] }, 'body.raw', 'must be an object'],
    ['an unknown top-level field', { type: 'track' }, 'body.type', 'is not a field of the version 1 envelope'],
  ])('rejects %s', (_case, changes, path, message) => {
    const result = direct(changed(envelope, changes));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.details).toHaveLength(1);
    expect(result.details[0]?.path).toBe(path);
    expect(result.details[0]?.message).toMatch(message);
  });

  it('reports every problem at once, one detail per unknown field', () => {
    const body = changed(envelope, { version: 2, messageId: undefined, timestamp: '2026-01-01T10:00:00Z', userId: 'u_1' });
    expect(direct(body)).toEqual({
      ok: false,
      details: [
        { path: 'body.version', message: 'must be the string "1"' },
        { path: 'body.messageId', message: 'is required' },
        { path: 'body.timestamp', message: 'is not a field of the version 1 envelope' },
        { path: 'body.userId', message: 'is not a field of the version 1 envelope' },
      ],
    });
  });

  it.each([
    ['an array', [envelope]],
    ['a string', 'order.paid'],
    ['null', null],
  ])('rejects a body that is %s', (_case, body) => {
    expect(direct(body)).toEqual({ ok: false, details: [{ path: 'body', message: 'must be a JSON object' }] });
  });

  it('adds mapped attributes from anywhere in the envelope, over the ones sent', () => {
    const result = direct(envelope, { invoiceId: '$.raw.invoice.id', currency: 'raw.source', missing: 'raw.nothing', messageId: 'eventType' });
    expect(onlyEvent(result).attributes).toEqual({
      orderId: 'ord_1201',
      total: 54.9,
      currency: 'billing',
      items: [{ sku: 'BOOK-HB-02' }],
      invoiceId: 'in_3391',
    });
  });

  it('creates attributes for mapped values when the envelope had none, and leaves them out when nothing resolves', () => {
    const { attributes: _, ...bare } = envelope;
    expect(onlyEvent(direct(bare, { lines: 'raw.invoice.lines' })).attributes).toEqual({ lines: 2 });
    expect(onlyEvent(direct(bare, { lines: 'raw.invoice.pages' }))).not.toHaveProperty('attributes');
    expect(onlyEvent(direct({ ...bare, attributes: {} })).attributes).toEqual({});
  });
});
