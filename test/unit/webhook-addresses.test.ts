import { describe, expect, it } from 'vitest';
import { embeddedIpv4, isPublicAddress, webhookUrlRefusal } from '../../lib/core/addresses.js';

/* The SSRF guard's address table: what a webhook may and may not be delivered to. */
describe('webhook address classification', () => {
  it.each([
    '0.0.0.0', '0.1.2.3', '10.0.0.1', '10.255.255.255', '100.64.0.1', '100.127.255.254', '127.0.0.1', '127.8.8.8',
    '169.254.169.254', '169.254.0.1', '172.16.0.1', '172.31.255.255', '192.0.0.8', '192.0.2.10', '192.88.99.1',
    '192.168.1.1', '198.18.0.1', '198.19.255.255', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250',
    '240.0.0.1', '255.255.255.255',
  ])('refuses IPv4 %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['1.1.1.1', '8.8.8.8', '93.184.216.34', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.169.0.1', '198.17.255.255', '223.255.255.254'])(
    'admits public IPv4 %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each([
    '::', '::1', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456::1', 'ff02::1', 'fec0::1', '2001:db8::1', '2001::1', '2001:2::1', '100::1', '64:ff9b:1::1',
    // IPv4 inside IPv6: mapped, NAT64 and 6to4 forms of non-public addresses
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:10.0.0.1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::192.168.0.1', '2002:7f00:1::', '2002:a9fe:a9fe::1',
  ])('refuses IPv6 %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['2606:4700:4700::1111', '2a00:1450:4001:81b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])('admits public IPv6 %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses what is not an IP address at all', () => {
    expect(isPublicAddress('example.com')).toBe(false);
    expect(isPublicAddress('')).toBe(false);
  });

  it('reads the IPv4 address an IPv6 form carries', () => {
    expect(embeddedIpv4('::ffff:169.254.169.254')).toBe('169.254.169.254');
    expect(embeddedIpv4('::ffff:a9fe:a9fe')).toBe('169.254.169.254');
    expect(embeddedIpv4('64:ff9b::a00:1')).toBe('10.0.0.1');
    expect(embeddedIpv4('2002:c0a8:101::')).toBe('192.168.1.1');
    expect(embeddedIpv4('2606:4700::1111')).toBeUndefined();
  });
});

describe('webhook URLs at creation', () => {
  it.each([
    ['http://example.com/hook', 'https://'],
    ['ftp://example.com/hook', 'https://'],
    ['not a url', 'absolute URL'],
    ['https://user:pass@example.com/hook', 'credentials'],
    ['https://localhost/hook', 'this machine'],
    ['https://api.localhost/hook', 'this machine'],
    ['https://127.0.0.1/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'private'],
    ['https://10.1.2.3:8443/hook', 'private'],
    ['https://[::1]/hook', 'private'],
    ['https://[::ffff:169.254.169.254]/hook', 'private'],
    ['https://[fd00::1]/hook', 'private'],
  ])('refuses %s', (url, reason) => {
    expect(webhookUrlRefusal(url)).toContain(reason);
  });

  it('admits public HTTPS URLs, by name or public address', () => {
    expect(webhookUrlRefusal('https://hooks.example.com/work')).toBeUndefined();
    expect(webhookUrlRefusal('https://93.184.216.34:8443/work')).toBeUndefined();
    expect(webhookUrlRefusal('https://[2606:4700:4700::1111]/work')).toBeUndefined();
  });

  it('admits loopback over http only when the local setting allows it', () => {
    expect(webhookUrlRefusal('http://127.0.0.1:4000/hook')).toBeDefined();
    expect(webhookUrlRefusal('http://127.0.0.1:4000/hook', { allowLoopback: true })).toBeUndefined();
    expect(webhookUrlRefusal('http://localhost:4000/hook', { allowLoopback: true })).toBeUndefined();
    expect(webhookUrlRefusal('http://10.0.0.1:4000/hook', { allowLoopback: true })).toBeDefined();
  });
});
