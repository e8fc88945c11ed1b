/**
 * Which addresses a callback may reach. Link-local and cloud metadata addresses are refused
 * always; loopback and private ranges are allowed unless CALLBACK_ALLOW_PRIVATE=false, in which
 * case CALLBACK_ALLOWED_HOSTS (host names, `*.suffix` names or CIDRs) lists the exceptions.
 * The check runs on the address actually connected to (after DNS), so a public name that
 * resolves to a private address is caught too.
 */
import { classifyIp, inCidr, parseCidr, parseIp, type Cidr } from './ip-ranges.js';

export interface AddressPolicyOptions {
  allowPrivate: boolean;
  /** Host names (exact or `*.suffix`) and CIDRs from CALLBACK_ALLOWED_HOSTS. */
  allowedHosts: string[];
}

export class RefusedAddressError extends Error {
  readonly code = 'ECALLBACKREFUSED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`callback address refused: ${host} -> ${address} (${reason})`);
    this.name = 'RefusedAddressError';
  }
}

export class AddressPolicy {
  private readonly names = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly cidrs: Cidr[] = [];

  constructor(readonly options: AddressPolicyOptions) {
    for (const entry of options.allowedHosts.map((h) => h.trim().toLowerCase()).filter(Boolean)) {
      const range = entry.includes('/') || parseIp(entry) ? parseCidr(entry) : null;
      if (range) this.cidrs.push(range);
      else if (entry.startsWith('*.')) this.suffixes.push(entry.slice(1));
      else this.names.add(entry);
    }
  }

  /** Null when `host` may connect to `address`; else the reason it may not. */
  refusal(host: string, address: string): string | null {
    const verdict = classifyIp(address);
    if (verdict.kind === 'forbidden') return verdict.label;
    if (verdict.kind === 'public' || this.options.allowPrivate) return null;
    if (this.isAllowedName(host)) return null;
    const parsed = parseIp(address);
    if (parsed && this.cidrs.some((range) => inCidr(parsed, range))) return null;
    return `${verdict.label} address, CALLBACK_ALLOW_PRIVATE=false`;
  }

  /** Throws RefusedAddressError when the connection must not be made. */
  assertAllowed(host: string, address: string): void {
    const reason = this.refusal(host, address);
    if (reason) throw new RefusedAddressError(host, address, reason);
  }

  private isAllowedName(host: string): boolean {
    const name = host.toLowerCase().replace(/\.$/, '');
    return this.names.has(name) || this.suffixes.some((suffix) => name.endsWith(suffix));
  }
}

/**
 * The check when an address is given: only http(s), and an IP literal the policy refuses is
 * refused now (a clear 400 at start instead of a dead-lettered stream). Names are checked when
 * connecting. Returns the reason to refuse, or null. `field` names the address in the reason.
 */
export function callbackUrlProblem(raw: string, policy: AddressPolicy, field = 'callbackUrl'): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${field} must be an http(s) URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${field} must be an http(s) URL`;
  if (!url.hostname) return `${field} must name a host`;
  if (parseIp(url.hostname)) {
    const reason = policy.refusal(url.hostname, url.hostname.replace(/^\[|\]$/g, ''));
    if (reason) return `${field} points to a refused address (${reason})`;
  }
  return null;
}
