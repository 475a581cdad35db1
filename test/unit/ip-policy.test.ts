import dns from 'node:dns';
import { once } from 'node:events';
import https from 'node:https';
import net from 'node:net';
import type { LookupAddress } from 'node:dns';
import { describe, expect, it, vi } from 'vitest';
import { blockedReason, checkUrl, guardedLookup, normaliseHost, parseAllowCidrs, systemResolve } from '../../src/security/ip-policy.ts';

const loopbackAllowed = parseAllowCidrs('127.0.0.0/8,::1/128');

function resolvesTo(...addresses: string[]) {
  return vi.fn(async (_host: string) => addresses);
}

function doesNotResolve(code = 'ENOTFOUND') {
  return vi.fn(async (host: string): Promise<string[]> => {
    throw Object.assign(new Error(`getaddrinfo ${code} ${host}`), { code });
  });
}

/** A port nobody listens on, so an allowed connection fails with ECONNREFUSED instead of needing a server. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

async function connectionError(start: () => { on(event: 'error', listener: (error: Error) => void): unknown }): Promise<NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    start().on('error', resolve);
  });
}

describe('blockedReason', () => {
  it.each([
    ['0.0.0.0', 'a "this network" address'],
    ['0.255.255.255', 'a "this network" address'],
    ['10.0.0.0', 'a private address'],
    ['10.255.255.255', 'a private address'],
    ['100.64.0.0', 'a shared (carrier-grade NAT) address'],
    ['100.127.255.255', 'a shared (carrier-grade NAT) address'],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['169.254.0.1', 'a link-local address (cloud metadata lives here)'],
    ['169.254.169.254', 'a link-local address (cloud metadata lives here)'],
    ['172.16.0.0', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.0.0.8', 'an IETF protocol assignment address'],
    ['192.0.2.1', 'a documentation address'],
    ['192.168.0.1', 'a private address'],
    ['192.168.255.255', 'a private address'],
    ['198.18.0.0', 'a benchmarking address'],
    ['198.19.255.255', 'a benchmarking address'],
    ['198.51.100.7', 'a documentation address'],
    ['203.0.113.9', 'a documentation address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['240.0.0.1', 'a reserved address'],
    ['255.255.255.254', 'a reserved address'],
    ['255.255.255.255', 'the broadcast address'],
    ['::', 'the unspecified address'],
    ['::1', 'a loopback address'],
    ['fe80::1', 'a link-local address'],
    ['febf:ffff::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['fc00::1', 'a unique local address'],
    ['fd12:3456:789a::1', 'a unique local address'],
    ['ff02::1', 'a multicast address'],
    ['2001:db8::1', 'a documentation address'],
    ['64:ff9b::808:808', 'a NAT64 address'],
    ['64:ff9b::a9fe:a9fe', 'a NAT64 address'],
    ['64:ff9b:1::1', 'a local-use NAT64 address'],
    ['2002:7f00:1::1', 'a 6to4 address'],
    ['2002:808:808::1', 'a 6to4 address'],
    ['2001::1', 'a Teredo tunnel address'],
    ['2001:2::1', 'an IETF protocol assignment address'],
    ['fec0::1', 'a site-local address'],
    ['::7f00:1', 'outside the global unicast range (2000::/3)'],
    ['100::1', 'outside the global unicast range (2000::/3)'],
  ])('blocks %s as %s', (address, kind) => {
    expect(blockedReason(address)).toBe(`${address} is ${kind}`);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    // The edges of the blocked ranges, one address outside each.
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '9.255.255.255',
    '11.0.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '223.255.255.255',
    '2001:db7:ffff::1',
    '2001:db9::1',
    '2003::1',
  ])('allows the public address %s', (address) => {
    expect(blockedReason(address)).toBeUndefined();
  });

  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', '127.0.0.1', 'a loopback address'],
    ['[::ffff:7f00:1]', '127.0.0.1', 'a loopback address'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1', 'a loopback address'],
    ['::FFFF:A9FE:A9FE', '169.254.169.254', 'a link-local address (cloud metadata lives here)'],
    ['::ffff:10.1.2.3', '10.1.2.3', 'a private address'],
  ])('judges the IPv4-mapped %s by the IPv4 address it reaches', (address, ipv4, kind) => {
    expect(blockedReason(address)).toBe(`${address} (${ipv4}) is ${kind}`);
  });

  it('allows an IPv4-mapped public address', () => {
    expect(blockedReason('::ffff:8.8.8.8')).toBeUndefined();
  });

  it('blocks anything that is not an IP address', () => {
    expect(blockedReason('localhost')).toBe('localhost is not an IP address');
    expect(blockedReason('1.2.3.4.5')).toBe('1.2.3.4.5 is not an IP address');
    expect(blockedReason('')).toBe(' is not an IP address');
  });

  it('lifts a block only inside the allowed ranges', () => {
    const allow = parseAllowCidrs('127.0.0.0/8, 10.1.0.0/16, fd00::/8');
    expect(blockedReason('127.0.0.1', allow)).toBeUndefined();
    expect(blockedReason('0x7f000001', allow)).toBeUndefined();
    expect(blockedReason('::ffff:127.0.0.1', allow)).toBeUndefined();
    expect(blockedReason('10.1.255.255', allow)).toBeUndefined();
    expect(blockedReason('fd00::1', allow)).toBeUndefined();
    expect(blockedReason('10.2.0.1', allow)).toBe('10.2.0.1 is a private address');
    expect(blockedReason('169.254.169.254', allow)).toBe('169.254.169.254 is a link-local address (cloud metadata lives here)');
    expect(blockedReason('::1', allow)).toBe('::1 is a loopback address');
    expect(blockedReason('fc00::1', allow)).toBe('fc00::1 is a unique local address');
  });
});

describe('normaliseHost', () => {
  const loopbackForms = [
    '127.0.0.1',
    '2130706433',
    '0x7f000001',
    '0X7F000001',
    '0x7f.0.0.1',
    '0x7F.0x0.0x0.0x1',
    '0177.0.0.1',
    '0177.0000.0000.0001',
    '017700000001',
    '127.1',
    '127.0.1',
    '0x7f.1',
    '127.0.0.1.',
  ];
  const metadataForms = [
    '169.254.169.254',
    '2852039166',
    '0xa9fea9fe',
    '0xa9.0xfe.0xa9.0xfe',
    '0251.0376.0251.0376',
    '025177524776',
    '169.16689662',
    '169.254.43518',
  ];

  it.each(loopbackForms)('reads %s as 127.0.0.1, as the URL parser does, and blocks it', (form) => {
    expect(normaliseHost(form)).toEqual({ kind: 'ip', address: '127.0.0.1' });
    expect(new URL(`https://${form}/`).hostname).toBe('127.0.0.1');
    expect(blockedReason(form)).toMatch(/is a loopback address$/);
  });

  it.each(metadataForms)('reads %s as 169.254.169.254, as the URL parser does, and blocks it', (form) => {
    expect(normaliseHost(form)).toEqual({ kind: 'ip', address: '169.254.169.254' });
    expect(new URL(`https://${form}/`).hostname).toBe('169.254.169.254');
    expect(blockedReason(form)).toMatch(/is a link-local address/);
  });

  it.each([
    ['[::1]', '::1'],
    ['::1', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['2606:4700:4700:0:0:0:0:1111', '2606:4700:4700::1111'],
    ['[2606:4700:4700::1111]', '2606:4700:4700::1111'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['[::ffff:7f00:1]', '127.0.0.1'],
    ['::ffff:a9fe:a9fe', '169.254.169.254'],
    ['0x.0x.0x.1', '0.0.0.1'],
  ])('normalises %s to %s', (host, address) => {
    expect(normaliseHost(host)).toEqual({ kind: 'ip', address });
  });

  it('leaves names as names', () => {
    expect(normaliseHost('hooks.Example.com')).toEqual({ kind: 'name', name: 'hooks.example.com' });
    expect(normaliseHost('localhost')).toEqual({ kind: 'name', name: 'localhost' });
    expect(normaliseHost('127.0.0.1.nip.io')).toEqual({ kind: 'name', name: '127.0.0.1.nip.io' });
    expect(normaliseHost('0x7f000001.example')).toEqual({ kind: 'name', name: '0x7f000001.example' });
  });

  it.each(['1.2.3.4.5', '256.0.0.1', '08.0.0.1', '4294967296', '127..1', 'example.123', '[not-ipv6]', '[127.0.0.1]', 'fe80::zz'])(
    'refuses %s, which is neither a name nor a valid address',
    (host) => {
      expect(() => normaliseHost(host)).toThrow(/is not a valid IPv[46] address/);
    },
  );
});

describe('parseAllowCidrs', () => {
  it('reads comma-separated IPv4 and IPv6 CIDRs, tolerating whitespace and empty entries', () => {
    const allow = parseAllowCidrs(' 127.0.0.0/8 ,::1/128,\t10.0.0.0/8 , ');
    expect(allow.map(([address, bits]) => `${address.toString()}/${bits}`)).toEqual(['127.0.0.0/8', '::1/128', '10.0.0.0/8']);
  });

  it('treats no value as an empty allow list', () => {
    expect(parseAllowCidrs(undefined)).toEqual([]);
    expect(parseAllowCidrs('')).toEqual([]);
    expect(parseAllowCidrs('  ')).toEqual([]);
  });

  it.each(['127.0.0.1', '10/8', '0x7f000000/8', '10.0.0.0/33', '::1/129', 'localhost/8', 'fd00::/x', '10.0.0.0/8/8'])(
    'names the bad entry %s',
    (entry) => {
      expect(() => parseAllowCidrs(`192.168.0.0/16, ${entry}`)).toThrow(`Invalid CIDR in allow list: "${entry}"`);
    },
  );
});

describe('checkUrl', () => {
  it('accepts an https URL whose name resolves only to public addresses', async () => {
    const resolve = resolvesTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c');
    const result = await checkUrl('https://Hooks.Example.com/in?x=1', { resolve });
    expect(result).toEqual({ ok: true, url: new URL('https://hooks.example.com/in?x=1') });
    expect(resolve).toHaveBeenCalledWith('hooks.example.com');
  });

  it.each([
    ['not a url', 'URL is not valid'],
    ['http://hooks.example.com/', 'URL must use https'],
    ['ftp://hooks.example.com/', 'URL must use https'],
    ['https://user:secret@hooks.example.com/', 'URL must not contain credentials'],
    ['https://user@hooks.example.com/', 'URL must not contain credentials'],
    ['https://:secret@hooks.example.com/', 'URL must not contain credentials'],
  ])('rejects %s before resolving anything', async (url, reason) => {
    const resolve = resolvesTo('8.8.8.8');
    expect(await checkUrl(url, { resolve })).toEqual({ ok: false, reason });
    expect(resolve).not.toHaveBeenCalled();
  });

  it('rejects names that do not resolve', async () => {
    expect(await checkUrl('https://nowhere.invalid/', { resolve: doesNotResolve() })).toEqual({
      ok: false,
      reason: 'nowhere.invalid does not resolve (ENOTFOUND)',
    });
    expect(await checkUrl('https://nowhere.invalid/', { resolve: resolvesTo() })).toEqual({
      ok: false,
      reason: 'nowhere.invalid does not resolve',
    });
  });

  it('rejects a name when any of its addresses is blocked, whatever the order', async () => {
    for (const resolve of [resolvesTo('8.8.8.8', '10.0.0.5'), resolvesTo('10.0.0.5', '8.8.8.8')]) {
      expect(await checkUrl('https://rebind.example.com/', { resolve })).toEqual({
        ok: false,
        reason: 'rebind.example.com resolves to an address that is not public',
      });
    }
  });

  it('rejects names resolving to IPv4-mapped or otherwise odd answers', async () => {
    expect(await checkUrl('https://mapped.example.com/', { resolve: resolvesTo('::ffff:169.254.169.254') })).toEqual({
      ok: false,
      reason: 'mapped.example.com resolves to an address that is not public',
    });
    expect(await checkUrl('https://odd.example.com/', { resolve: resolvesTo('not-an-address') })).toEqual({
      ok: false,
      reason: 'odd.example.com resolves to an address that is not public',
    });
  });

  it.each([
    ['https://[::1]/', '::1 is a loopback address'],
    ['https://0x7f000001/', '127.0.0.1 is a loopback address'],
    ['https://2130706433/', '127.0.0.1 is a loopback address'],
    ['https://127.1:8443/', '127.0.0.1 is a loopback address'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address (cloud metadata lives here)'],
    ['https://[::ffff:7f00:1]/', '127.0.0.1 is a loopback address'],
    ['https://[fd00::1]/', 'fd00::1 is a unique local address'],
    ['https://0.0.0.0/', '0.0.0.0 is a "this network" address'],
  ])('checks the literal address in %s without DNS', async (url, reason) => {
    const resolve = resolvesTo('8.8.8.8');
    expect(await checkUrl(url, { resolve })).toEqual({ ok: false, reason });
    expect(resolve).not.toHaveBeenCalled();
  });

  it('accepts public literal addresses without DNS', async () => {
    const resolve = resolvesTo();
    expect(await checkUrl('https://1.1.1.1/', { resolve })).toMatchObject({ ok: true });
    expect(await checkUrl('https://[2606:4700:4700::1111]/', { resolve })).toMatchObject({ ok: true });
    expect(resolve).not.toHaveBeenCalled();
  });

  it('lets the allow list through, and only the allow list', async () => {
    expect(await checkUrl('https://localhost:8443/hook', { allow: loopbackAllowed, resolve: resolvesTo('127.0.0.1', '::1') })).toMatchObject({
      ok: true,
    });
    expect(await checkUrl('https://[::1]/', { allow: loopbackAllowed, resolve: resolvesTo() })).toMatchObject({ ok: true });
    expect(await checkUrl('https://internal.example.com/', { allow: loopbackAllowed, resolve: resolvesTo('127.0.0.1', '192.168.1.1') })).toEqual({
      ok: false,
      reason: 'internal.example.com resolves to an address that is not public',
    });
  });

  it('resolves through the operating system in production', async () => {
    expect(await systemResolve('localhost')).toContain('127.0.0.1');
    expect(await checkUrl('https://localhost/', { resolve: systemResolve })).toEqual({ ok: false, reason: 'localhost resolves to an address that is not public' });
  });
});

describe('guardedLookup', () => {
  it('refuses, at connect time, an https request to a name resolving to a blocked address', async () => {
    const error = await connectionError(() => https.request({ host: 'localhost', port: 443, lookup: guardedLookup() }).end());
    expect(error.code).toBe('ERR_BLOCKED_ADDRESS');
    expect(error.message).toBe('Refusing to connect: localhost resolves to an address that is not public');
  });

  it('refuses a raw socket too', async () => {
    const error = await connectionError(() => net.connect({ host: 'localhost', port: 443, lookup: guardedLookup() }));
    expect(error.code).toBe('ERR_BLOCKED_ADDRESS');
  });

  it('connects when the allow list covers the address', async () => {
    const port = await closedPort();
    const error = await connectionError(() => https.request({ host: 'localhost', port, lookup: guardedLookup(loopbackAllowed) }).end());
    expect(error.code).not.toBe('ERR_BLOCKED_ADDRESS');
    expect(error.code).toBe('ECONNREFUSED');
  });

  it.each([false, true])('answers in the shape asked for (all: %s)', async (all) => {
    const answer = await new Promise<{ address: string | LookupAddress[]; family: number | undefined }>((resolve, reject) => {
      guardedLookup(loopbackAllowed)('localhost', { all }, (error, address, family) => (error ? reject(error) : resolve({ address, family })));
    });
    if (all) expect(answer.address).toContainEqual({ address: '127.0.0.1', family: 4 });
    else expect(answer).toEqual({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/), family: expect.any(Number) });
  });

  it('passes resolver errors through untouched', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    const lookup = vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: (error: Error) => void) =>
      callback(notFound)) as unknown as typeof dns.lookup);
    try {
      const error = await new Promise((resolve) => guardedLookup()('nowhere.invalid', {}, resolve));
      expect(error).toBe(notFound);
      expect(lookup).toHaveBeenCalledWith('nowhere.invalid', { all: true }, expect.any(Function));
    } finally {
      lookup.mockRestore();
    }
  });
});
