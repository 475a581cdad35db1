import { describe, expect, it } from 'vitest';
import { maxBatchSize, normalise, type Provider } from '../../../src/domain/ingest/normalise/index.ts';
import { changed, eventsOf, now, nowIso, onlyEvent, payload, type Payload } from './payloads.ts';

// Segment and RudderStack share one spec and one reader; every behaviour is checked through both providers,
// with each one's own payload shapes where they differ.

type SpecProvider = Extract<Provider, 'segment' | 'rudderstack'>;
const specProviders: SpecProvider[] = ['segment', 'rudderstack'];
const run = (provider: SpecProvider, body: unknown, mapping: Record<string, string> = {}) => normalise(provider, body, mapping, { now });

const sanne = { anonymousId: '5f3c2a9e-8b1d-4c7e-9a6f-2d4b8e1c7a30' };
const lena = { anonymousId: '8d872292-709c-4fd6-b8e4-07b6d1a8c7c2' };

describe('normalise: segment and rudderstack calls', () => {
  it.each([
    [
      'segment',
      'segment-track',
      {
        messageId: 'ajs-next-1767261600123-8c1f4e2a6d3b4a9cb7e51f2a3c4d5e6f',
        occurredAt: '2026-01-01T10:00:00.123Z',
        eventType: 'Order Completed',
        clientUserId: 'u_1042',
        attributes: {
          email: 'sanne@example.com',
          plan: 'pro',
          orderId: 'ord_5531',
          revenue: 19.99,
          currency: 'EUR',
          products: [{ sku: 'TSHIRT-M-NAVY', name: 'Logo tee', price: 19.99, quantity: 1 }],
          ...sanne,
        },
        endpoints: { email: 'sanne@example.com' },
      },
    ],
    [
      'segment',
      'segment-identify',
      {
        messageId: 'ajs-next-1767261500001-0b9d2e7c4f1a4e8d9c3b2a1f0e9d8c7b',
        occurredAt: '2026-01-01T09:58:20.004Z',
        eventType: 'identify',
        clientUserId: 'u_1042',
        attributes: {
          email: 'sanne@example.com',
          phone: '+31 6 1234 5678',
          firstName: 'Sanne',
          plan: 'pro',
          createdAt: '2025-06-14T08:00:00.000Z',
          ...sanne,
        },
        endpoints: { email: 'sanne@example.com', phone: '+31 6 1234 5678' },
      },
    ],
    [
      'segment',
      'segment-page',
      {
        messageId: 'ajs-next-1767261400777-4e5f6a7b8c9d4e0f8a1b2c3d4e5f6a7b',
        occurredAt: '2026-01-01T09:56:40.777Z',
        eventType: 'page',
        clientUserId: 'u_1042',
        attributes: {
          path: '/pricing',
          url: 'https://shop.example.com/pricing?ref=nav',
          title: 'Pricing | Example Shop',
          referrer: 'https://shop.example.com/',
          search: '?ref=nav',
          ...sanne,
          name: 'Pricing',
        },
      },
    ],
    [
      'segment',
      'segment-screen',
      {
        messageId: '7D3C2B1A-0F9E-4D8C-B7A6-5F4E3D2C1B0A',
        occurredAt: '2026-01-01T10:20:05.500Z',
        eventType: 'screen',
        attributes: { itemCount: 3, from: 'Product detail', anonymousId: 'C0A1B2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D', name: 'Basket' },
      },
    ],
    [
      'rudderstack',
      'rudderstack-track',
      {
        messageId: 'c1e4a9d2-3b7f-4e21-9f6a-0d8b5c2e7a14',
        occurredAt: '2026-03-29T08:15:27.452Z',
        eventType: 'Product Added',
        clientUserId: 'cust_7781',
        attributes: {
          email: 'lena@example.net',
          phone: '+44 20 7946 0018',
          company: 'Fabrikam',
          product_id: 'P-3391',
          sku: 'MUG-BLK',
          price: 12.5,
          quantity: 2,
          cart_id: 'cart_88',
          ...lena,
        },
        endpoints: { email: 'lena@example.net', phone: '+44 20 7946 0018' },
      },
    ],
    [
      'rudderstack',
      'rudderstack-identify',
      {
        messageId: '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d',
        occurredAt: '2026-03-29T08:15:00.000Z',
        eventType: 'identify',
        clientUserId: 'cust_7781',
        attributes: { email: 'lena@example.net', name: 'Lena Hart', logins: 7, ...lena },
        endpoints: { email: 'lena@example.net' },
      },
    ],
  ] as const)('%s: normalises %s', (provider, fixture, expected) => {
    expect(run(provider, payload(fixture))).toEqual({ ok: true, events: [{ version: '1', ...expected, raw: payload(fixture) }] });
  });

  it.each([
    ['segment', 'segment-batch', ['identify', 'Trial Started', 'page', 'screen'], ['u_2001', 'u_2001', 'u_2001', 'u_2001']],
    ['rudderstack', 'rudderstack-batch', ['page', 'Checkout Started', 'screen'], [undefined, 'cust_7781', 'cust_7781']],
  ] as const)('%s: normalises a batch of mixed calls in order, each with its own item as raw', (provider, fixture, eventTypes, users) => {
    const body = payload(fixture);
    const events = eventsOf(run(provider, body));
    expect(events.map((event) => event.eventType)).toEqual(eventTypes);
    expect(events.map((event) => event.clientUserId)).toEqual(users);
    expect(events.map((event) => event.raw)).toEqual(body.batch);
    expect(new Set(events.map((event) => event.messageId)).size).toBe(eventTypes.length);
  });

  it('segment: a batch item is read on its own, without the batch-level context', () => {
    const events = eventsOf(run('segment', payload('segment-batch')));
    expect(events[1]).toEqual({
      version: '1',
      messageId: 'srv-track-2001-2',
      occurredAt: '2026-02-03T08:00:01.000Z',
      eventType: 'Trial Started',
      clientUserId: 'u_2001',
      attributes: { trialDays: 14 },
      raw: (payload('segment-batch').batch as Payload[])[1],
    });
    expect(events[0]?.endpoints).toEqual({ email: 'amir@example.org' });
  });

  it('rudderstack: a mobile screen keeps its name once, from properties and the call alike', () => {
    const screen = eventsOf(run('rudderstack', payload('rudderstack-batch')))[2];
    expect(screen?.attributes).toEqual({ name: 'Order Status', orderId: 'ord_1201', anonymousId: 'a17c3e5f-2b4d-4f6a-8c0e-1d3f5a7b9c2e' });
  });
});

describe.each(specProviders)('normalise: %s validation', (provider) => {
  const track = provider === 'segment' ? 'segment-track' : 'rudderstack-track';
  const batchFixture = provider === 'segment' ? 'segment-batch' : 'rudderstack-batch';

  it.each([
    ['no type', { type: undefined }, 'body.type', 'is required'],
    ['a group call', { type: 'group', groupId: 'acme' }, 'body.type', 'group calls are not supported; send track, identify, page, screen'],
    ['an alias call', { type: 'alias', previousId: 'a_1' }, 'body.type', 'alias calls are not supported; send track, identify, page, screen'],
    ['an unknown type', { type: 'purchase' }, 'body.type', 'must be one of track, identify, page, screen'],
    ['a capitalised type', { type: 'Track' }, 'body.type', 'must be one of track, identify, page, screen'],
    ['a type that is not a string', { type: 1 }, 'body.type', 'must be one of track, identify, page, screen'],
    ['no messageId', { messageId: undefined }, 'body.messageId', /^is required/],
    ['a null messageId', { messageId: null }, 'body.messageId', /^is required/],
    ['an empty messageId', { messageId: '' }, 'body.messageId', 'must not be empty'],
    ['a messageId that is an object', { messageId: { id: 1 } }, 'body.messageId', /must be a string or a whole number/],
    ['a messageId of 256 characters', { messageId: 'm'.repeat(256) }, 'body.messageId', 'must be at most 255 characters'],
    ['a track without an event', { event: undefined }, 'body.event', 'is required for track calls'],
    ['a track with an empty event', { event: '' }, 'body.event', 'must not be empty'],
    ['an event of 201 characters', { event: 'e'.repeat(201) }, 'body.event', 'must be at most 200 characters'],
    ['a timestamp that is not a date', { timestamp: 'now' }, 'body.timestamp', /ISO-8601 date-time with a time zone/],
    ['a timestamp without a time zone', { timestamp: '2026-03-29T08:15:27.452' }, 'body.timestamp', /ISO-8601/],
    ['a bad originalTimestamp when it is the first time given', { timestamp: undefined, originalTimestamp: '29/03/2026' }, 'body.originalTimestamp', /ISO-8601/],
    ['a userId that is an object', { userId: { id: 'u_1' } }, 'body.userId', /must be a string or a whole number/],
    ['a userId of 256 characters', { userId: 'u'.repeat(256) }, 'body.userId', 'must be at most 255 characters'],
  ])('rejects %s', (_case, changes, path, message) => {
    expect(run(provider, changed(track, changes))).toEqual({ ok: false, details: [{ path, message: expect.stringMatching(message) }] });
  });

  it('reports every problem of one call together', () => {
    const result = run(provider, changed(track, { messageId: undefined, event: '', timestamp: 'later', userId: true }));
    expect(result.ok || result.details.map((detail) => detail.path)).toEqual(['body.messageId', 'body.event', 'body.timestamp', 'body.userId']);
  });

  it('rejects the whole batch when one item is bad, with details only for that item', () => {
    const body = changed(batchFixture, {});
    const items = body.batch as Payload[];
    items.push(changed(track, { event: undefined, messageId: 'late-1' }), changed(track, { messageId: 'late-2' }));
    expect(run(provider, body)).toEqual({
      ok: false,
      details: [{ path: `body.batch.${items.length - 2}.event`, message: 'is required for track calls' }],
    });
  });

  it('reports bad items across a batch, each under its own index', () => {
    const body = { batch: [changed(track, { type: 'alias' }), payload(track), 'Order Completed', changed(track, { messageId: 7, timestamp: 'x' })] };
    expect(run(provider, body)).toEqual({
      ok: false,
      details: [
        { path: 'body.batch.0.type', message: 'alias calls are not supported; send track, identify, page, screen' },
        { path: 'body.batch.2', message: expect.stringMatching(/must be a .* call \(a JSON object\)/) },
        { path: 'body.batch.3.timestamp', message: expect.stringMatching(/ISO-8601/) },
      ],
    });
  });

  it.each([
    ['empty', [], 'must contain at least one call'],
    ['one call too long', Array.from({ length: maxBatchSize + 1 }, () => ({})), `must contain at most 500 calls, got 501`],
    ['not an array', { 0: {} }, /must be an array of .* calls/],
  ])('rejects a batch that is %s', (_case, batch, message) => {
    expect(run(provider, { batch })).toEqual({ ok: false, details: [{ path: 'body.batch', message: expect.stringMatching(message) }] });
  });

  it('names the sender in its messages', () => {
    const name = provider === 'segment' ? 'Segment' : 'RudderStack';
    expect(run(provider, { batch: 'all of them' })).toEqual({ ok: false, details: [{ path: 'body.batch', message: `must be an array of ${name} calls` }] });
    expect(run(provider, { batch: [42] })).toEqual({ ok: false, details: [{ path: 'body.batch.0', message: `must be a ${name} call (a JSON object)` }] });
  });

  it('accepts a batch of exactly the maximum size', () => {
    const batch = Array.from({ length: maxBatchSize }, (_, index) => changed(track, { messageId: `m-${index}` }));
    expect(eventsOf(run(provider, { batch }))).toHaveLength(500);
  });

  it.each([
    ['an array', [payload(track)]],
    ['a string', 'track'],
    ['null', null],
  ])('rejects a body that is %s', (_case, body) => {
    expect(run(provider, body)).toEqual({ ok: false, details: [{ path: 'body', message: 'must be a JSON object' }] });
  });
});

describe.each(specProviders)('normalise: %s field mapping', (provider) => {
  const track = provider === 'segment' ? 'segment-track' : 'rudderstack-track';

  it.each([
    ['timestamp first', {}, 'timestamp'],
    ['originalTimestamp without timestamp', { timestamp: undefined }, 'originalTimestamp'],
    ['sentAt without either', { timestamp: undefined, originalTimestamp: undefined }, 'sentAt'],
    ['receivedAt last', { timestamp: undefined, originalTimestamp: undefined, sentAt: undefined }, 'receivedAt'],
    ['a null timestamp as absent', { timestamp: null }, 'originalTimestamp'],
  ])('takes occurredAt from %s', (_case, changes, field) => {
    const body = changed(track, changes);
    expect(onlyEvent(run(provider, body)).occurredAt).toBe(body[field]);
  });

  it('falls back to the arrival time when the call carries no time at all', () => {
    const body = changed(track, { timestamp: undefined, originalTimestamp: undefined, sentAt: undefined, receivedAt: undefined });
    expect(onlyEvent(run(provider, body)).occurredAt).toBe(nowIso);
  });

  it.each([
    ['+02:00', '2026-03-29T10:15:27.452+02:00', '2026-03-29T08:15:27.452Z'],
    ['-05:00', '2026-03-29T03:15:27-05:00', '2026-03-29T08:15:27.000Z'],
    ['Z without milliseconds', '2026-03-29T08:15:27Z', '2026-03-29T08:15:27.000Z'],
  ])('normalises a timestamp with %s to UTC', (_case, timestamp, expected) => {
    expect(onlyEvent(run(provider, changed(track, { timestamp }))).occurredAt).toBe(expected);
  });

  it.each([
    ['no userId', { userId: undefined }],
    ['a null userId', { userId: null }],
    ['an empty userId', { userId: '' }],
  ])('keeps an anonymous call with %s anonymous, with anonymousId as an attribute', (_case, changes) => {
    const event = onlyEvent(run(provider, changed(track, changes)));
    expect(event).not.toHaveProperty('clientUserId');
    expect(event.attributes?.anonymousId).toBe(payload(track).anonymousId);
  });

  it('converts a numeric userId and messageId to text', () => {
    const event = onlyEvent(run(provider, changed(track, { userId: 1042, messageId: 99 })));
    expect([event.clientUserId, event.messageId]).toEqual(['1042', '99']);
  });

  it.each([
    ['traits before context.traits', { traits: { email: 'own@example.com' }, 'context.traits.email': 'ctx@example.com' }, { email: 'own@example.com' }],
    ['context.traits when there are no traits', { 'context.traits': { email: 'ctx@example.com', phone: '+1 (555) 010-0199' } }, { email: 'ctx@example.com', phone: '+1 (555) 010-0199' }],
    ['the next source when the first e-mail is malformed', { traits: { email: 'not-an-email' }, 'context.traits.email': 'ctx@example.com' }, { email: 'ctx@example.com' }],
    ['phone from traits and e-mail from context', { traits: { phone: '+353 1 555 0147' }, 'context.traits': { email: 'ctx@example.com' } }, { email: 'ctx@example.com', phone: '+353 1 555 0147' }],
  ])('extracts endpoints: %s', (_case, changes, endpoints) => {
    expect(onlyEvent(run(provider, changed(track, { 'context.traits': undefined, ...changes }))).endpoints).toEqual(endpoints);
  });

  it('leaves endpoints out when no trait holds a usable one, keeping the values in attributes', () => {
    const event = onlyEvent(run(provider, changed(track, { 'context.traits': { email: 'x@', phone: 'call me', phoneNumber: 5 } })));
    expect(event).not.toHaveProperty('endpoints');
    expect(event.attributes).toMatchObject({ email: 'x@', phone: 'call me' });
  });

  it('layers attributes: context.traits, then properties, then anonymousId, then the mapping', () => {
    const body = changed(track, {
      'context.ip': '192.0.2.77',
      'context.traits': { tier: 'gold', source: 'traits', anonymousId: 'from-traits' },
      properties: { source: 'properties', anonymousId: 'from-properties', total: 12 },
      traits: { ignored: 'a track call does not merge top-level traits' },
    });
    const event = onlyEvent(run(provider, body, { source: 'context.ip', total: 'properties.missing' }));
    expect(event.attributes).toEqual({ tier: 'gold', source: '192.0.2.77', anonymousId: body.anonymousId, total: 12 });
    const unmapped = onlyEvent(run(provider, body));
    expect(unmapped.attributes).toEqual({ tier: 'gold', source: 'properties', anonymousId: body.anonymousId, total: 12 });
  });

  it('applies the mapping\'s attribute keys to each call, with $. and index paths, and ignores reserved keys', () => {
    const body = changed(track, { 'context.ip': '192.0.2.10', properties: { items: [{ sku: 'A-1' }, { sku: 'B-2' }] } });
    const mapping = { ip: 'context.ip', secondSku: '$.properties.items[1].sku', firstSku: 'properties.items.0.sku', messageId: 'context.ip', email: 'context.ip' };
    const event = onlyEvent(run(provider, body, mapping));
    expect(event.messageId).toBe(body.messageId);
    expect(event.endpoints).toEqual(onlyEvent(run(provider, body)).endpoints);
    expect(event.attributes).toMatchObject({ ip: '192.0.2.10', secondSku: 'B-2', firstSku: 'A-1' });
    expect(event.attributes).not.toHaveProperty('messageId');
  });

  it('takes an identify\'s attributes from traits, not properties', () => {
    const body = changed(track, { type: 'identify', event: undefined, traits: { plan: 'team' }, properties: { leaked: true }, 'context.traits': undefined });
    const event = onlyEvent(run(provider, body));
    expect(event.eventType).toBe('identify');
    expect(event.attributes).toEqual({ plan: 'team', anonymousId: body.anonymousId });
  });

  it.each(['page', 'screen'])('names a %s call by its type and keeps its name as an attribute (or none)', (type) => {
    const named = onlyEvent(run(provider, changed(track, { type, event: undefined, name: 'Checkout', properties: {}, 'context.traits': undefined })));
    expect(named.eventType).toBe(type);
    expect(named.attributes).toEqual({ anonymousId: payload(track).anonymousId, name: 'Checkout' });
    for (const name of [undefined, '', 7]) {
      const unnamed = onlyEvent(run(provider, changed(track, { type, event: undefined, name, properties: {}, 'context.traits': undefined })));
      expect(unnamed.eventType).toBe(type);
      expect(unnamed.attributes).toEqual({ anonymousId: payload(track).anonymousId });
    }
  });

  it.each([
    ['a string', 'Order Completed'],
    ['an array', ['revenue', 19.99]],
    ['null', null],
  ])('ignores properties and context.traits that are %s rather than spreading them', (_case, value) => {
    const event = onlyEvent(run(provider, changed(track, { properties: value, 'context.traits': value })));
    expect(event.attributes).toEqual({ anonymousId: payload(track).anonymousId });
  });

  it('leaves attributes out when a call carries none', () => {
    const body = changed(track, { anonymousId: undefined, properties: undefined, context: undefined });
    expect(onlyEvent(run(provider, body))).not.toHaveProperty('attributes');
  });
});
