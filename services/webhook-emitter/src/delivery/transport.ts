/**
 * axios's transport for callbacks (its documented `adapter` option): one request on Node's http
 * or https module through the guarded agents, the answer handed back as a stream.
 *
 * Why not axios's own Node adapter: it is built for every feature a request might want (proxies,
 * redirects, decompression, progress, data: URLs), and measured on this machine it costs about
 * 220 µs of CPU per request on top of Node's ~70 µs, which alone would cap the emitter below
 * 3,000 deliveries/s on a core. A callback needs none of it: no redirect is ever followed, no
 * proxy is used (the address check must apply to the receiver itself), the body is sent as the
 * exact signed bytes and the answer is only drained. axios still builds the request (the headers
 * that vary per event) and the agents still check every address they connect to.
 */
import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { AxiosAdapter } from 'axios';
import type { GuardedAgents } from '@notetaker/net';
import type { Attempt } from './deadlines.js';

/**
 * What every callback carries, whatever its event: set here rather than merged by axios each time.
 * Content-Type stays with the Sender's headers: without one, axios sets its own on a POST.
 */
const FIXED_HEADERS = { 'User-Agent': 'notetaker-webhooks/0.1', Accept: '*/*' };

interface Target {
  secure: boolean;
  options: http.RequestOptions;
}

/**
 * Callback URLs repeat (one per meeting, often one per customer), so each is parsed once: Node
 * would otherwise parse it and convert it to request options on every attempt. Bounded: a
 * stream of distinct URLs empties it rather than growing it.
 */
const targets = new Map<string, Target>();
const MAX_TARGETS = 1000;

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target) return target;
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`unsupported protocol ${parsed.protocol}`);
  }
  // Only what a request reads (not href, hash, search...): these are copied on every attempt.
  const { protocol, hostname, port, path, auth } = urlToHttpOptions(parsed);
  const options: http.RequestOptions = { protocol, hostname, port, path };
  if (auth) options.auth = auth;
  target = { secure: protocol === 'https:', options };
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(url, target);
  return target;
}

export function callbackTransport(agents: GuardedAgents): AxiosAdapter {
  return (config) =>
    new Promise((resolve, reject) => {
      const attempt = (config as { attempt?: Attempt }).attempt;
      const { secure, options } = targetOf(config.url ?? '');
      const request = (secure ? https : http).request(
        {
          ...options,
          method: (config.method ?? 'post').toUpperCase(),
          headers: Object.assign(config.headers.toJSON(true), FIXED_HEADERS) as http.OutgoingHttpHeaders,
          agent: secure ? agents.https : agents.http,
        },
        (res) => {
          attempt?.answered(res);
          resolve({
            data: res,
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            // None: axios would copy and normalize every header, twice, for nobody (Node parses
            // them only when asked). The Sender reads Retry-After from the answer when it needs it.
            headers: {},
            config,
            request,
          });
        },
      );
      request.on('error', reject);
      attempt?.sent(request);
      request.end(config.data as Buffer);
    });
}
