/**
 * http(s) agents that check every address they connect to against the AddressPolicy: names are
 * checked on what DNS returned (inside `lookup`, so the socket never opens toward a refused
 * address), IP literals before connecting, and the connected peer once more on `connect` in case
 * a future runtime reaches the network by another path. Keep-alive: healthy receivers reuse
 * their connections.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { RefusedAddressError, type AddressPolicy } from './address-policy.js';

type LookupAddress = { address: string; family: number };
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type LookupOptions = dns.LookupOptions & { all?: boolean };
/** dns.lookup's shape; tests of names that resolve to metadata addresses pass their own resolver. */
export type Resolver = (hostname: string, callback: (err: Error | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) =>
  dns.lookup(hostname, { all: true, verbatim: true }, (err, addresses) => callback(err, addresses ?? []));

export interface GuardedAgentOptions {
  policy: AddressPolicy;
  /** Sockets per receiver (origin); the dispatcher never asks for more. */
  maxSocketsPerReceiver: number;
  resolver?: Resolver;
}

function guardedLookup(policy: AddressPolicy, resolver: Resolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolver(hostname, (err, addresses) => {
      if (err) return callback(err as NodeJS.ErrnoException, options.all ? [] : '', undefined);
      const family = typeof options.family === 'number' ? options.family : 0;
      const candidates = addresses.filter((a) => family === 0 || a.family === family);
      // Keep only allowed addresses: a name resolving to one public and one metadata address
      // must never lead to the metadata one.
      const allowed = candidates.filter((a) => policy.refusal(hostname, a.address) === null);
      if (allowed.length === 0) {
        const first = candidates[0];
        const reason = first ? (policy.refusal(hostname, first.address) ?? 'no address') : 'no address';
        const refused = new RefusedAddressError(hostname, first?.address ?? '-', reason);
        return callback(refused as unknown as NodeJS.ErrnoException, options.all ? [] : '', undefined);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}

/** Runs the checks around the base agent's createConnection. */
function guardConnection(
  options: http.ClientRequestArgs,
  callback: (err: Error | null, socket?: Duplex) => void,
  policy: AddressPolicy,
  resolver: Resolver,
  create: (
    options: http.ClientRequestArgs,
    callback: (err: Error | null, socket: Duplex) => void,
  ) => Duplex | null | undefined,
): Duplex | undefined {
  const host = (options.host ?? 'localhost').replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    const reason = policy.refusal(host, host);
    if (reason) {
      process.nextTick(() => callback(new RefusedAddressError(host, host, reason)));
      return undefined;
    }
  }
  const socket =
    create({ ...options, lookup: guardedLookup(policy, resolver) } as http.ClientRequestArgs, callback) ?? undefined;
  const raw = socket as net.Socket | undefined;
  raw?.once('connect', () => {
    const peer = raw.remoteAddress;
    const reason = peer ? policy.refusal(host, peer) : null;
    if (reason) raw.destroy(new RefusedAddressError(host, peer ?? '-', reason));
  });
  return socket;
}

/** Makes `agent` run the checks around its own createConnection, for every connection it opens. */
function guard<A extends http.Agent>(agent: A, policy: AddressPolicy, resolver: Resolver): A {
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => guardConnection(options, callback as never, policy, resolver, create);
  return agent;
}

export interface GuardedAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

/**
 * A kept-alive connection is closed after this long unused, or sooner when the receiver's
 * `Keep-Alive: timeout=N` answer asks for it (Node then takes a second off N). Receivers close
 * idle connections on their own clock (Node's servers after 5 s), and a request sent as that close
 * is on the wire meets a closed connection: a failed attempt for a healthy receiver. Node applies
 * the receiver's hint only below the agent's own timeout, so without one it never would.
 */
const IDLE_SOCKET_MS = 4000;

export function createGuardedAgents(options: GuardedAgentOptions): GuardedAgents {
  const resolver = options.resolver ?? systemResolver;
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSocketsPerReceiver,
    maxFreeSockets: options.maxSocketsPerReceiver,
    timeout: IDLE_SOCKET_MS,
    // Reuse the most recent socket: the others age out instead of racing the server's idle close.
    scheduling: 'lifo' as const,
  };
  const httpAgent = guard(new http.Agent(agentOptions), options.policy, resolver);
  const httpsAgent = guard(new https.Agent(agentOptions), options.policy, resolver);
  return {
    http: httpAgent,
    https: httpsAgent,
    destroy() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
