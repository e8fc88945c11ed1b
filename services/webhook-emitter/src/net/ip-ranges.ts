/**
 * What kind of address a callback would connect to. Parsed into bytes by hand (not by string
 * prefix) so every spelling of one address lands in the same class: `::ffff:169.254.169.254`,
 * `::ffff:a9fe:a9fe` and `169.254.169.254` are the same metadata endpoint.
 */
import net from 'node:net';

export type AddressClass = 'public' | 'private' | 'forbidden';

export interface Classified {
  kind: AddressClass;
  /** Why, for the delivery log: 'link-local', 'loopback', 'cloud metadata'... */
  label: string;
}

export interface Cidr {
  bytes: Uint8Array;
  prefix: number;
}

/** IPv4 as 4 bytes, IPv6 as 16; null when `text` is not an IP literal. Zone ids (`%eth0`) are ignored. */
export function parseIp(text: string): Uint8Array | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const address = bare.split('%')[0];
  const version = net.isIP(address);
  if (version === 4) return Uint8Array.from(address.split('.').map(Number));
  if (version === 6) return parseIpv6(address);
  return null;
}

function parseIpv6(address: string): Uint8Array {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    // Dotted IPv4 tail (::ffff:1.2.3.4): two more 16-bit groups.
    const v4 = text
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    text = `${text.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...restGroups].map((g) => parseInt(g, 16));
  for (const group of groups) tail.push(group >> 8, group & 0xff);
  return Uint8Array.from(tail);
}

/** The IPv4 address an IPv6 one stands for (IPv4-mapped, IPv4-compatible, NAT64), else null. */
export function embeddedIpv4(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length !== 16) return null;
  const zeroUpTo = (n: number) => bytes.subarray(0, n).every((b) => b === 0);
  // ::ffff:a.b.c.d (mapped)
  if (zeroUpTo(10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  // ::a.b.c.d (compatible, deprecated but still routed by some stacks); :: and ::1 are not IPv4.
  if (zeroUpTo(12) && !(bytes[12] === 0 && bytes[13] === 0 && bytes[14] === 0 && bytes[15] <= 1)) {
    return bytes.slice(12);
  }
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix): a translator would connect to the IPv4 address.
  const nat64 = [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0];
  if (nat64.every((b, i) => bytes[i] === b)) return bytes.slice(12);
  return null;
}

export function parseCidr(text: string): Cidr | null {
  const [address, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return null;
  const bytes = parseIp(address);
  if (!bytes) return null;
  const max = bytes.length * 8;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? String(max)) || prefix > max) return null;
  return { bytes, prefix };
}

/** Whether `bytes` (IPv4-mapped forms compared as IPv4) lies inside `cidr`. */
export function inCidr(bytes: Uint8Array, cidr: Cidr): boolean {
  const address = bytes.length === 16 && cidr.bytes.length === 4 ? embeddedIpv4(bytes) : bytes;
  if (!address || address.length !== cidr.bytes.length) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((address[i] & mask) !== (cidr.bytes[i] & mask)) return false;
  }
  return true;
}

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`bad built-in CIDR ${text}`);
  return parsed;
}

const RULES: Array<[Cidr, Classified]> = [
  // Cloud metadata endpoints first: some sit inside ranges that would otherwise be "private".
  [cidr('100.100.100.200/32'), { kind: 'forbidden', label: 'cloud metadata' }], // Alibaba
  [cidr('168.63.129.16/32'), { kind: 'forbidden', label: 'cloud metadata' }], // Azure wire server
  [cidr('fd00:ec2::254/128'), { kind: 'forbidden', label: 'cloud metadata' }], // AWS over IPv6
  [cidr('169.254.0.0/16'), { kind: 'forbidden', label: 'link-local (cloud metadata)' }],
  [cidr('fe80::/10'), { kind: 'forbidden', label: 'link-local' }],
  [cidr('0.0.0.0/8'), { kind: 'forbidden', label: 'unspecified' }],
  [cidr('::/128'), { kind: 'forbidden', label: 'unspecified' }],
  [cidr('224.0.0.0/4'), { kind: 'forbidden', label: 'multicast' }],
  [cidr('ff00::/8'), { kind: 'forbidden', label: 'multicast' }],
  [cidr('240.0.0.0/4'), { kind: 'forbidden', label: 'reserved' }],
  [cidr('127.0.0.0/8'), { kind: 'private', label: 'loopback' }],
  [cidr('::1/128'), { kind: 'private', label: 'loopback' }],
  [cidr('10.0.0.0/8'), { kind: 'private', label: 'private' }],
  [cidr('172.16.0.0/12'), { kind: 'private', label: 'private' }],
  [cidr('192.168.0.0/16'), { kind: 'private', label: 'private' }],
  [cidr('100.64.0.0/10'), { kind: 'private', label: 'carrier-grade NAT' }],
  [cidr('fc00::/7'), { kind: 'private', label: 'unique local' }],
  [cidr('fec0::/10'), { kind: 'private', label: 'site-local' }],
];

/** Classifies an IP literal; an address that is not one is 'forbidden' (nothing to check it by). */
export function classifyIp(text: string): Classified {
  const bytes = parseIp(text);
  if (!bytes) return { kind: 'forbidden', label: 'not an IP address' };
  const v4 = embeddedIpv4(bytes);
  const candidates = v4 ? [bytes, v4] : [bytes];
  for (const [range, verdict] of RULES) {
    if (candidates.some((candidate) => candidate.length === range.bytes.length && inCidr(candidate, range))) {
      return verdict;
    }
  }
  return { kind: 'public', label: 'public' };
}
