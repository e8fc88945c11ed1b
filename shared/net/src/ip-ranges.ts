/**
 * What kind of address a callback would connect to. Addresses are parsed by ipaddr.js, so every
 * spelling of one address lands in the same class: `169.254.169.254`, `0xa9fea9fe`,
 * `::ffff:169.254.169.254`, `::ffff:a9fe:a9fe`, `64:ff9b::a9fe:a9fe` (NAT64) and
 * `2002:a9fe:a9fe::` (6to4) all reach the same metadata endpoint.
 */
import ipaddr from 'ipaddr.js';

export type AddressClass = 'public' | 'private' | 'forbidden';
export type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = [Address, number];

export interface Classified {
  kind: AddressClass;
  /** Why, for the delivery log: 'link-local', 'loopback', 'cloud metadata'... */
  label: string;
}

/** The address of an IP literal (any spelling the URL parser and the resolver accept), else null.
 * Brackets and zone ids (`%eth0`) are ignored. */
export function parseIp(text: string): Address | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const address = bare.split('%')[0];
  return ipaddr.isValid(address) ? ipaddr.parse(address) : null;
}

export function parseCidr(text: string): Cidr | null {
  const trimmed = text.trim();
  try {
    return trimmed.includes('/') ? ipaddr.parseCIDR(trimmed) : single(trimmed);
  } catch {
    return null;
  }
}

function single(text: string): Cidr | null {
  const address = parseIp(text);
  return address ? [address, address.kind() === 'ipv4' ? 32 : 128] : null;
}

/** IPv6 ranges that carry an IPv4 address in their last (or, for 6to4, second and third) groups. */
const EMBEDDING: Array<{ range: Cidr; at: number }> = [
  { range: ipaddr.parseCIDR('::ffff:0:0/96'), at: 12 }, // IPv4-mapped
  { range: ipaddr.parseCIDR('::ffff:0:0:0/96'), at: 12 }, // IPv4-translated (SIIT)
  { range: ipaddr.parseCIDR('64:ff9b::/96'), at: 12 }, // NAT64 well-known prefix
  { range: ipaddr.parseCIDR('2002::/16'), at: 2 }, // 6to4: a relay connects to the IPv4 address
  { range: ipaddr.parseCIDR('::/96'), at: 12 }, // IPv4-compatible (deprecated, still routed by some stacks)
];

/** The IPv4 address an IPv6 one stands for, else null (`::` and `::1` are not IPv4). */
export function embeddedIpv4(address: Address): ipaddr.IPv4 | null {
  if (address.kind() !== 'ipv6') return null;
  const v6 = address as ipaddr.IPv6;
  const found = EMBEDDING.find(({ range }) => v6.match(range));
  if (!found) return null;
  const bytes = v6.toByteArray().slice(found.at, found.at + 4);
  if (found.at === 12 && v6.match(EMBEDDING[4].range) && bytes.slice(0, 3).every((b) => b === 0) && bytes[3] <= 1)
    return null;
  return new ipaddr.IPv4(bytes);
}

/** Whether `address` (or the IPv4 address it embeds) lies inside `cidr`. */
export function inCidr(address: Address, cidr: Cidr): boolean {
  const candidate = address.kind() === cidr[0].kind() ? address : embeddedIpv4(address);
  return candidate !== null && candidate.kind() === cidr[0].kind() && candidate.match(cidr);
}

const RULES: Array<[Cidr, Classified]> = (
  [
    // Cloud metadata endpoints first: some sit inside ranges that would otherwise be "private".
    ['100.100.100.200/32', 'forbidden', 'cloud metadata'], // Alibaba
    ['168.63.129.16/32', 'forbidden', 'cloud metadata'], // Azure wire server
    ['fd00:ec2::254/128', 'forbidden', 'cloud metadata'], // AWS over IPv6
    ['169.254.0.0/16', 'forbidden', 'link-local (cloud metadata)'],
    ['fe80::/10', 'forbidden', 'link-local'],
    ['0.0.0.0/8', 'forbidden', 'unspecified'],
    ['::/128', 'forbidden', 'unspecified'],
    ['224.0.0.0/4', 'forbidden', 'multicast'],
    ['ff00::/8', 'forbidden', 'multicast'],
    ['240.0.0.0/4', 'forbidden', 'reserved'],
    ['127.0.0.0/8', 'private', 'loopback'],
    ['::1/128', 'private', 'loopback'],
    ['10.0.0.0/8', 'private', 'private'],
    ['172.16.0.0/12', 'private', 'private'],
    ['192.168.0.0/16', 'private', 'private'],
    ['100.64.0.0/10', 'private', 'carrier-grade NAT'],
    ['fc00::/7', 'private', 'unique local'],
    ['fec0::/10', 'private', 'site-local'],
  ] as const
).map(([range, kind, label]) => [ipaddr.parseCIDR(range), { kind, label }]);

/** Classifies an IP literal; an address that is not one is 'forbidden' (nothing to check it by). */
export function classifyIp(text: string): Classified {
  const address = parseIp(text);
  if (!address) return { kind: 'forbidden', label: 'not an IP address' };
  const v4 = embeddedIpv4(address);
  const candidates: Address[] = v4 ? [address, v4] : [address];
  for (const [range, verdict] of RULES) {
    if (candidates.some((candidate) => candidate.kind() === range[0].kind() && candidate.match(range))) return verdict;
  }
  return { kind: 'public', label: 'public' };
}
