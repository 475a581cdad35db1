import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

// Outbound webhooks go to URLs our customers choose, so without this policy anyone could make us
// call our own loopback, private network or cloud metadata service (server-side request forgery).

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** Ranges an operator has chosen to reach anyway, such as a test receiver on 127.0.0.1. */
export type AllowList = readonly Cidr[];

export type NormalisedHost = { kind: 'ip'; address: string } | { kind: 'name'; name: string };

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export type Resolve = (host: string) => Promise<string[]>;

// Order matters: the first match names the reason, so narrow ranges come before the ones that contain them.
const blockedIpv4 = ranges([
  ['0.0.0.0/8', 'a "this network" address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address (cloud metadata lives here)'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol assignment address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['255.255.255.255/32', 'the broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
]);

const blockedIpv6 = ranges([
  ['::/128', 'the unspecified address'],
  ['::1/128', 'a loopback address'],
  ['64:ff9b::/96', 'a NAT64 address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['2001::/32', 'a Teredo tunnel address'],
  ['2001:db8::/32', 'a documentation address'],
  ['2001::/23', 'an IETF protocol assignment address'],
  ['2002::/16', 'a 6to4 address'],
  ['fc00::/7', 'a unique local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
]);
// Every public IPv6 address lives in 2000::/3; what lies outside it and is not named above
// (IPv4-compatible ::/96, IPv4-translated, discard…) is nobody's webhook receiver either.
const globalUnicastIpv6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** Comma-separated CIDRs from configuration, such as `127.0.0.0/8, ::1/128`. */
export function parseAllowCidrs(value: string | undefined): AllowList {
  if (value === undefined) return [];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.map((entry) => {
    // ipaddr.js reads "10/8" as 0.0.0.10/8, which is not what anyone writing it means.
    const valid = entry.includes(':') ? ipaddr.IPv6.isValidCIDR(entry) : ipaddr.IPv4.isValidCIDRFourPartDecimal(entry);
    if (!valid) throw new Error(`Invalid CIDR in allow list: "${entry}" (expected e.g. 10.0.0.0/8 or fd00::/8)`);
    return ipaddr.parseCIDR(entry);
  });
}

/**
 * Tells literal addresses from names, spelling addresses the one way we compare them: every numeric IPv4
 * form the WHATWG URL parser and inet_aton accept (2130706433, 0x7f.1, 0177.0.0.1…) becomes dotted decimal,
 * and IPv4-mapped IPv6 becomes the IPv4 address it reaches.
 */
export function normaliseHost(host: string): NormalisedHost {
  const bracketed = host.startsWith('[') && host.endsWith(']');
  const bare = bracketed ? host.slice(1, -1) : host;
  if (bracketed || bare.includes(':')) {
    if (!ipaddr.IPv6.isValid(bare)) throw new Error(`"${host}" is not a valid IPv6 address`);
    return { kind: 'ip', address: canonical(ipaddr.IPv6.parse(bare)) };
  }

  // Like the URL parser: one trailing dot is allowed, and a bare "0x" part means zero.
  const labels = (bare.endsWith('.') ? bare.slice(0, -1) : bare).split('.').map((label) => (/^0x$/i.test(label) ? '0' : label));
  const candidate = labels.join('.');
  if (ipaddr.IPv4.isValid(candidate)) return { kind: 'ip', address: ipaddr.IPv4.parse(candidate).toString() };
  // A name ending in a number is an IPv4 address gone wrong (1.2.3.4.5, 08.0.0.1); the URL parser refuses these too.
  if (/^(\d+|0x[0-9a-f]*)$/i.test(labels.at(-1) ?? '')) throw new Error(`"${host}" is not a valid IPv4 address`);
  return { kind: 'name', name: host.toLowerCase() };
}

/** Why an address must not be called, or undefined when it may be. */
export function blockedReason(address: string, allow: AllowList = []): string | undefined {
  const host = parseAddress(address);
  if (host === undefined) return `${address} is not an IP address`;
  // normaliseHost turned IPv4-mapped IPv6 into the IPv4 host it reaches, so that host is judged (and allowed) here.
  const target = ipaddr.parse(host.address);
  if (allow.some((cidr) => cidr[0].kind() === target.kind() && target.match(cidr))) return undefined;

  const kind = classify(target);
  if (kind === undefined) return undefined;
  return host.address === address ? `${address} is ${kind}` : `${address} (${host.address}) is ${kind}`;
}

/** The check to run before accepting a webhook URL, and again before each delivery. */
export async function checkUrl(url: string, options: { allow?: AllowList; resolve: Resolve }): Promise<UrlCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'URL is not valid' };
  }
  if (parsed.protocol !== 'https:') return { ok: false, reason: 'URL must use https' };
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: 'URL must not contain credentials' };

  let host: NormalisedHost;
  try {
    host = normaliseHost(parsed.hostname);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  if (host.kind === 'ip') {
    const reason = blockedReason(host.address, options.allow);
    return reason === undefined ? { ok: true, url: parsed } : { ok: false, reason };
  }

  let addresses: string[];
  try {
    addresses = await options.resolve(host.name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: `${host.name} does not resolve${code === undefined ? '' : ` (${code})`}` };
  }
  if (addresses.length === 0) return { ok: false, reason: `${host.name} does not resolve` };
  // One bad answer is enough: the client may connect to any of them, and an attacker controls the order.
  if (addresses.some((address) => blockedReason(address, options.allow) !== undefined)) return { ok: false, reason: notPublic(host.name) };
  return { ok: true, url: parsed };
}

/** The resolver production uses: the operating system's, as the HTTP client itself would see it. */
export const systemResolve: Resolve = async (host) => {
  const answers = await dns.promises.lookup(host, { all: true });
  return answers.map((answer) => answer.address);
};

/**
 * A `lookup` for `https.request`/`net.connect` that refuses blocked addresses at connect time, so a name that
 * passed checkUrl cannot be re-pointed at an internal address afterwards (DNS rebinding).
 * Node skips `lookup` entirely for literal IP hosts, so those still need checkUrl.
 */
export function guardedLookup(allow: AllowList = []): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      if (addresses.some(({ address }) => blockedReason(address, allow) !== undefined)) return callback(blockedAddressError(hostname), '');
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (first === undefined) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '');
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * Why a name is refused. It does not say which address the name resolved to, or of which kind: these reasons reach
 * the account (the 422, a delivery attempt's error), and they must not map an internal network for whoever
 * registers `https://db.internal/`. A literal address in a URL is the caller's own, so its reason names it.
 */
const notPublic = (hostname: string) => `${hostname} resolves to an address that is not public`;

function blockedAddressError(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`Refusing to connect: ${notPublic(hostname)}`), { code: 'ERR_BLOCKED_ADDRESS' });
}

function classify(address: Address): string | undefined {
  const table = address.kind() === 'ipv4' ? blockedIpv4 : blockedIpv6;
  const named = table.find(([cidr]) => cidr[0].kind() === address.kind() && address.match(cidr))?.[1];
  if (named !== undefined || address.kind() === 'ipv4') return named;
  return address.match(globalUnicastIpv6) ? undefined : 'outside the global unicast range (2000::/3)';
}

function parseAddress(address: string): { kind: 'ip'; address: string } | undefined {
  try {
    const host = normaliseHost(address);
    return host.kind === 'ip' ? host : undefined;
  } catch {
    return undefined;
  }
}

function canonical(address: ipaddr.IPv6): string {
  return address.isIPv4MappedAddress() ? address.toIPv4Address().toString() : address.toRFC5952String();
}

function ranges(entries: [string, string][]): [Cidr, string][] {
  return entries.map(([cidr, kind]) => [ipaddr.parseCIDR(cidr), kind]);
}
