// The guard against server-side request forgery: a webhook URL must not make the server call itself,
// its network or a cloud metadata service. A *refused* address is unspecified, loopback, private,
// carrier-grade NAT, link-local (169.254.169.254, the metadata address, is one), unique-local
// (fd00:ec2::254 is one), multicast, reserved or documentation space; IPv6 forms that embed an IPv4
// address (mapped, NAT64, 6to4) are judged by that address. The URL is checked when an endpoint is
// saved, and again at every delivery after DNS resolution: the connection goes to the address that was
// checked (guardedLookup), so a name that resolves elsewhere the second time (DNS rebinding) gains
// nothing. WEBHOOKS_ALLOW_PRIVATE turns the address checks off (development, tests).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** [first address, prefix length, what it is] */
type Range = [string, number, string];

const v4Ranges: Range[] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const v6Ranges: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['64:ff9b:1::', 48, 'local NAT64'],
  ['100::', 64, 'discard'],
  ['2001::', 23, 'IETF protocol assignments'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

function v4Bytes(address: string): number[] | null {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return null;
  return parts.map(Number);
}

function v6Bytes(address: string): number[] | null {
  let text = address.toLowerCase().split('%')[0]!;
  let tail: number[] = [];
  // A trailing dotted IPv4 part (::ffff:1.2.3.4) stands for the last two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = v4Bytes(dotted[2]!);
    if (!v4) return null;
    tail = v4;
    text = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const wanted = 8 - tail.length / 2;
  const missing = wanted - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return [...all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255]), ...tail];
}

function inRange(bytes: number[], [first, prefix]: Range, parse: (a: string) => number[] | null): boolean {
  const base = parse(first)!;
  for (let bit = 0; bit < prefix; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((bytes[bit >> 3]! & mask) !== (base[bit >> 3]! & mask)) return false;
  }
  return true;
}

function v4Refusal(bytes: number[]): string | null {
  const range = v4Ranges.find((r) => inRange(bytes, r, v4Bytes));
  return range ? range[2] : null;
}

/** Why an IP address may not be a webhook destination, or null when it may. Anything unparsable is refused. */
export function addressRefusal(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return v4Refusal(v4Bytes(address)!);
  if (family !== 6) return 'not an IP address';
  const bytes = v6Bytes(address);
  if (!bytes) return 'not an IP address';
  const embedded = (offset: number) => v4Refusal(bytes.slice(offset, offset + 4));
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach the IPv4 address they carry.
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return embedded(12);
  if (inRange(bytes, ['64:ff9b::', 96, ''], v6Bytes)) return embedded(12);
  // 6to4 (2002:a.b.c.d::/48) as well.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return embedded(2);
  const range = v6Ranges.find((r) => inRange(bytes, r, v6Bytes));
  return range ? range[2] : null;
}

/** A refused destination: the reason is safe to show the endpoint's owner (it names no secret). */
export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

/** The host of a URL as an IP literal ([::1] → ::1), or null for a name. */
function literalOf(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

/** Checks what can be told about a URL without DNS: http(s), no credentials, an allowed literal address. */
export function checkUrlShape(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DestinationRefused('must be an http or https URL');
  if (url.username || url.password) throw new DestinationRefused('must not carry a user name or password');
  if (!url.hostname) throw new DestinationRefused('must name a host');
  if (allowPrivate) return;
  const literal = literalOf(url);
  const refusal = literal ? addressRefusal(literal) : /(^|\.)localhost\.?$/i.test(url.hostname) ? 'loopback' : null;
  if (refusal) throw new DestinationRefused(`${url.hostname} is a ${refusal} address`);
}

type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const resolveAll: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** The first refused address among a name's addresses, as an error. */
function refusalAmong(hostname: string, addresses: LookupAddress[]): DestinationRefused | null {
  for (const { address } of addresses) {
    const refusal = addressRefusal(address);
    if (refusal) return new DestinationRefused(`${hostname} resolves to ${address}, a ${refusal} address`);
  }
  return null;
}

/**
 * The check when an endpoint is saved: the URL's shape and, for a name, what it resolves to now (any
 * refused address refuses the URL). A name that does not resolve within `timeoutMs` is accepted:
 * every delivery checks again, and that check is the one that protects.
 */
export async function checkDestination(url: URL, allowPrivate: boolean, timeoutMs = 2000, resolve: Resolver = resolveAll): Promise<void> {
  checkUrlShape(url, allowPrivate);
  if (allowPrivate || literalOf(url)) return;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    resolve(url.hostname).catch(() => null),
    new Promise<null>((done) => (timer = setTimeout(() => done(null), timeoutMs))),
  ]).finally(() => clearTimeout(timer));
  const refused = addresses && refusalAmong(url.hostname, addresses);
  if (refused) throw refused;
}

/**
 * The `lookup` of a delivery's connection: resolves the name, refuses it when any of its addresses is
 * refused, and hands the connection exactly the addresses it checked.
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolver = resolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const refused = allowPrivate ? null : refusalAmong(hostname, found);
        if (refused) return callback(refused, '', 0);
        const addresses = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (!addresses.length) return callback(Object.assign(new Error(`${hostname} has no address of the requested family`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
