// The SSRF guard as tables: which addresses are refused and why, the URL checks made when an endpoint
// is saved, and the delivery connection's lookup, which hands the socket only addresses it checked
// (a name that resolves to loopback the second time — DNS rebinding — is refused at connection).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal, checkDestination, DestinationRefused, guardedLookup } from './destination-guard.js';
import { patternsFor } from './event-types.js';

describe('addressRefusal', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.0.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['169.254.0.1', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['not-an-ip', 'not an IP address'],
  ])('%s is refused (%s)', (address, reason) => {
    expect(addressRefusal(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.255.0.1', '2606:4700:4700::1111', '2a00:1450:4007:80f::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])('%s is allowed', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });
});

describe('checkDestination (when an endpoint is saved)', () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const dns = resolver({ 'internal.example.com': ['10.1.2.3'], 'mixed.example.com': ['93.184.215.14', '127.0.0.1'], 'public.example.com': ['93.184.215.14'] });
  const check = (url: string, allowPrivate = false) => checkDestination(new URL(url), allowPrivate, 200, dns);

  it.each([
    ['ftp://93.184.215.14/x', /http or https/],
    ['http://user:pass@93.184.215.14/x', /user name or password/],
    ['http://127.0.0.1:8080/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://10.0.0.5/hook', /private/],
    ['http://169.254.169.254/latest/meta-data', /link-local/],
    ['http://[::1]:3000/', /loopback/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://2130706433/', /127\.0\.0\.1 is a loopback/],
    ['http://localhost:3000/', /localhost is a loopback address/],
    ['http://api.localhost/', /loopback/],
    ['https://internal.example.com/hook', /resolves to 10\.1\.2\.3, a private address/],
    ['https://mixed.example.com/hook', /resolves to 127\.0\.0\.1/],
  ])('refuses %s', async (url, reason) => {
    const refused = await check(url).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DestinationRefused);
    expect((refused as Error).message).toMatch(reason);
  });

  it('accepts public addresses and names, and names that do not resolve yet (delivery checks again)', async () => {
    for (const url of ['https://93.184.215.14/hook', 'https://public.example.com/x?y=1', 'https://not-yet.example.com/hook', 'http://[2606:4700:4700::1111]/']) await expect(check(url)).resolves.toBeUndefined();
  });

  it('accepts anything http(s) with WEBHOOKS_ALLOW_PRIVATE, but still never credentials or other schemes', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/', 'https://internal.example.com/']) await expect(check(url, true)).resolves.toBeUndefined();
    await expect(check('http://a:b@127.0.0.1/', true)).rejects.toBeInstanceOf(DestinationRefused);
    await expect(check('file:///etc/passwd', true)).rejects.toBeInstanceOf(DestinationRefused);
  });
});

describe('guardedLookup (at delivery)', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A name that resolved to a public address when it was saved and now resolves to loopback. */
  const rebinding = async (host: string) => (host === 'rebind.test' ? [{ address: '127.0.0.1', family: 4 }] : Promise.reject(new Error('unknown')));

  const get = (allowPrivate: boolean) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: 'rebind.test', port, path: '/', agent: false, lookup: guardedLookup(allowPrivate, rebinding) }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });

  it('refuses the connection when the name now resolves to a refused address: nothing is sent', async () => {
    const error = await get(false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DestinationRefused);
    expect((error as Error).message).toBe('rebind.test resolves to 127.0.0.1, a loopback address');
    expect(hits).toBe(0);
  });

  it('connects to exactly the address it resolved and checked (the name exists nowhere else)', async () => {
    expect(await get(true)).toBe(200);
    expect(hits).toBe(1);
  });
});

describe('patternsFor', () => {
  it('an event type is selected by itself, its entity’s wildcard and *', () => {
    expect(patternsFor('tasks:created')).toEqual(['*', 'tasks:*', 'tasks:created']);
    expect(patternsFor('ping')).toEqual(['*', 'ping']);
  });
});
