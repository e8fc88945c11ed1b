/**
 * One HTTP attempt: POST the exact bytes with their headers through axios and the guarded agents
 * (transport.ts) and classify what happened. Redirects are answers, not instructions (never
 * followed); proxies from the environment are ignored (the address check must apply to the
 * receiver itself); the whole attempt, body included, has one deadline.
 */
import { Axios, AxiosError, type AxiosRequestConfig } from 'axios';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { type GuardedAgents, RefusedAddressError } from '@notetaker/net';
import { parseRetryAfter } from './retry-policy.js';
import { Attempt, AttemptDeadlines } from './deadlines.js';
import { callbackTransport } from './transport.js';

export type AttemptKind = 'success' | 'http_error' | 'redirect' | 'gone' | 'timeout' | 'network_error' | 'refused';

export interface AttemptResult {
  kind: AttemptKind;
  status: number | null;
  /** Null on success; else what went wrong, for the delivery log. */
  error: string | null;
  durationMs: number;
  retryAfterMs: number | null;
}

/** A receiver's answer body is not ours to keep: read at most this much so the socket can be reused. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export class Sender {
  private readonly client: Axios;
  private readonly deadlines: AttemptDeadlines;

  constructor(
    agents: GuardedAgents,
    private readonly timeoutMs: number,
  ) {
    this.deadlines = new AttemptDeadlines(timeoutMs);
    // An Axios on one default, its transport; not axios.create's defaults (per-method header
    // tables, transitional options, environment classes), since axios merges every default into
    // each request and checks it. No other option would apply: the transport hands back every
    // answer as it is, whatever its status (the Sender judges it), as a stream, and without
    // transforms the Buffer goes as it is (the signature covers exactly these bytes).
    this.client = new Axios({ adapter: callbackTransport(agents) });
  }

  async post(url: string, body: Buffer, headers: Record<string, string>): Promise<AttemptResult> {
    const attempt = this.deadlines.start();
    const took = () => Math.round((performance.now() - attempt.startedAt) * 10) / 10;
    try {
      // `attempt` reaches the transport (a class instance: axios passes it through as is), which
      // hands it what it opens, so the deadline can end the request or the answer's body.
      // request(), not post(): post() merges its arguments into a config first, and request()
      // merges that with the defaults again.
      const res = await this.client.request<IncomingMessage>({
        url,
        method: 'post',
        data: body,
        headers,
        attempt,
      } as AxiosRequestConfig);
      await drain(res.data, attempt);
      const status = res.status;
      const durationMs = took();
      if (status >= 200 && status < 300)
        return { kind: 'success', status, error: null, durationMs, retryAfterMs: null };
      if (status === 410)
        return { kind: 'gone', status, error: 'receiver answered 410 Gone', durationMs, retryAfterMs: null };
      if (status >= 300 && status < 400) {
        return { kind: 'redirect', status, error: 'redirect not followed', durationMs, retryAfterMs: null };
      }
      const retryAfterMs =
        status === 429 || status === 503 ? parseRetryAfter(res.data.headers['retry-after'], Date.now()) : null;
      return { kind: 'http_error', status, error: `HTTP ${status}`, durationMs, retryAfterMs };
    } catch (err) {
      return {
        ...classifyError(err, attempt.expired, this.timeoutMs),
        durationMs: took(),
        status: null,
        retryAfterMs: null,
      };
    } finally {
      this.deadlines.finish(attempt);
    }
  }

  /** Shutdown: ends every attempt in flight now (their events stay pending for the next start). */
  abortAll(): void {
    this.deadlines.expireAll();
  }
}

function classifyError(err: unknown, timedOut: boolean, timeoutMs: number): { kind: AttemptKind; error: string } {
  if (timedOut) return { kind: 'timeout', error: `no answer within ${timeoutMs} ms` };
  const cause = err instanceof AxiosError ? (err.cause ?? err) : err;
  if (cause instanceof RefusedAddressError || (err as { code?: string }).code === 'ECALLBACKREFUSED') {
    const refused = cause as RefusedAddressError;
    return { kind: 'refused', error: `address refused: ${refused.reason ?? 'policy'}` };
  }
  const code = (cause as { code?: string }).code ?? (err as { code?: string }).code;
  const messages: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'DNS lookup failed',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
    EPIPE: 'connection closed',
    CERT_HAS_EXPIRED: 'TLS certificate expired',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
    ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
  };
  return {
    kind: 'network_error',
    error: (code && messages[code]) || (code ? `network error ${code}` : 'network error'),
  };
}

/** Reads and discards the answer (so a keep-alive socket is reusable); too much closes it. */
function drain(stream: Readable, attempt: Attempt): Promise<void> {
  return new Promise((resolve, reject) => {
    // Expired between the answer and here: the answer is destroyed already, its 'close' gone.
    if (attempt.expired || stream.destroyed) {
      stream.destroy();
      return reject(new Error('aborted'));
    }
    let bytes = 0;
    let ended = false;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_RESPONSE_BYTES) {
        ended = true;
        stream.destroy();
        resolve();
      }
    });
    stream.once('end', () => {
      ended = true;
      resolve();
    });
    stream.once('error', reject);
    stream.once('close', () => {
      if (!ended) reject(new Error('answer cut short'));
    });
  });
}
