/**
 * axios's transport for callbacks (its documented `adapter` option): one request on Node's http
 * or https module through the guarded agents, the answer handed back as a stream.
 *
 * Why not axios's own Node adapter: it is built for every feature a request might want (proxies,
 * redirects, decompression, progress, data: URLs), and measured on this machine it costs about
 * 220 µs of CPU per request on top of Node's ~70 µs, which alone would cap the emitter below
 * 3,000 deliveries/s on a core. A callback needs none of it: no redirect is ever followed, no
 * proxy is used (the address check must apply to the receiver itself), the body is sent as the
 * exact signed bytes and the answer is only drained. axios still builds the request (headers,
 * status handling) and the agents still check every address they connect to.
 */
import http from 'node:http';
import https from 'node:https';
import type { AxiosAdapter, RawAxiosResponseHeaders } from 'axios';
import type { GuardedAgents } from '../net/guarded-agent.js';
import type { Attempt } from './deadlines.js';

export function callbackTransport(agents: GuardedAgents): AxiosAdapter {
  return (config) =>
    new Promise((resolve, reject) => {
      const attempt = (config as { attempt?: Attempt }).attempt;
      const url = new URL(config.url ?? '');
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:') return reject(new Error(`unsupported protocol ${url.protocol}`));
      const request = (secure ? https : http).request(
        url,
        {
          method: (config.method ?? 'post').toUpperCase(),
          headers: config.headers.toJSON(true) as http.OutgoingHttpHeaders,
          agent: secure ? agents.https : agents.http,
        },
        (res) => {
          attempt?.answered(res);
          resolve({
            data: res,
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: res.headers as RawAxiosResponseHeaders,
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
