import { BlockList, isIP } from 'node:net';
import { hasControlCharacters } from './text.js';

/**
 * Where a webhook may be delivered: only to public addresses (the SSRF guard). The table
 * follows the IANA special-purpose registries; IPv6 forms that embed an IPv4 address
 * (IPv4-mapped, NAT64, 6to4) are judged by the IPv4 address they carry. The delivery worker
 * checks the address it actually connects to (after DNS), so a DNS answer that changes between
 * a check and the connection cannot reach a private address.
 */
const NOT_PUBLIC_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'this network / unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata at 169.254.169.254)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved, and broadcast'],
];

const NOT_PUBLIC_V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 32, 'Teredo'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:10::', 28, 'ORCHID'],
  ['2001:20::', 28, 'ORCHIDv2'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

let blocked: BlockList | undefined;

function blockList(): BlockList {
  if (!blocked) {
    blocked = new BlockList();
    for (const [network, prefix] of NOT_PUBLIC_V4) blocked.addSubnet(network, prefix, 'ipv4');
    for (const [network, prefix] of NOT_PUBLIC_V6) blocked.addSubnet(network, prefix, 'ipv6');
  }
  return blocked;
}

/** The IPv4 address an IPv6 address carries (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
export function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!); // ::ffff:a.b.c.d
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return v4(groups[6]!, groups[7]!); // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765)
  if (zeros(0, 6)) return v4(groups[6]!, groups[7]!); // ::a.b.c.d (IPv4-compatible, deprecated by RFC 4291 §2.5.5.1; :: and ::1 fall in 0.0.0.0/8)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!); // 64:ff9b::a.b.c.d
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!); // 2002:AABB:CCDD::
  return undefined;
}

/** True when a literal IP address may receive webhooks: a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blockList().check(address, 'ipv4');
  if (family !== 6) return false;
  const carried = embeddedIpv4(address);
  if (carried) return isPublicAddress(carried);
  return !blockList().check(address, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tails and `::` expanded), or undefined. */
function expandIpv6(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const all = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return all.map((group) => parseInt(group, 16));
}

/** `scheme://` and a non-empty authority, as written: `https:///x`, `https:/x` and `https:x` name no host. */
const WITH_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/\\?#]/i;

/**
 * A URL the service will call, read as its host: the URL, and its host name in lower case
 * without IPv6 brackets and without a trailing dot (`localhost.` is `localhost`); or why it has
 * none. WHATWG URL parsing reads `https:x` and `https:///x` as host `x`, so the raw text must
 * itself carry `//` and an authority.
 */
export function outboundTarget(raw: string): { url: URL; host: string } | string {
  if (hasControlCharacters(raw)) return 'Must not contain control characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute URL';
  }
  if (!WITH_AUTHORITY.test(raw.trim())) return 'Must be an absolute URL with a host (scheme://host/…)';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
  if (!host) return 'Must be an absolute URL with a host (scheme://host/…)';
  return { url, host };
}

/** What the refusal of a loopback URL says: the local runtime's setting that admits one. */
const LOOPBACK_SETTING = 'a local development server admits http://127.0.0.1:<port> and http://localhost:<port> when started with WEBHOOK_ALLOW_LOOPBACK=true';

export interface UrlRules {
  /** Local development and tests: admits `http://127.0.0.1:<port>` and `http://localhost:<port>`. */
  allowLoopback?: boolean;
}

/**
 * Why a webhook URL is refused at creation, or undefined when it is acceptable: it must be
 * HTTPS, carry no credentials, and not name a non-public address literally (a host name is
 * judged again at delivery, on the address actually connected to).
 */
export function webhookUrlRefusal(raw: string, rules: UrlRules = {}): string | undefined {
  const target = outboundTarget(raw);
  if (typeof target === 'string') return target;
  const { url, host } = target;
  const loopbackHost = host === 'localhost' || host === '127.0.0.1';
  if (rules.allowLoopback && loopbackHost && (url.protocol === 'http:' || url.protocol === 'https:')) return undefined;
  if (host === 'localhost') return `Must not point to this machine (${LOOPBACK_SETTING})`;
  if (loopbackHost || host === '::1') return `Must not point to a private, loopback, link-local or reserved address (${LOOPBACK_SETTING})`;
  if (url.protocol !== 'https:') return 'Must be an https:// URL';
  if (url.username || url.password) return 'Must not carry credentials';
  if (host.endsWith('.localhost')) return 'Must not point to this machine';
  if (isIP(host) && !isPublicAddress(host)) return 'Must not point to a private, loopback, link-local or reserved address';
  return undefined;
}

/** The classification table, for the docs and tests. */
export const NON_PUBLIC_RANGES = { ipv4: NOT_PUBLIC_V4, ipv6: NOT_PUBLIC_V6 };
