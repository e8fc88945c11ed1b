/**
 * Requests of one meeting's recording run one after another (an append must see what the one
 * before stored; a finish must not run in the middle of an append), and what waits is bounded: a
 * store that hangs must not make this process hold every meeting's audio while it waits. Beyond
 * the bounds a request is refused at once with a retryable `recording_busy`: the worker keeps the
 * batch in its spool and sends it again, nothing is lost and nothing piles up here.
 */
import { recordingErrors } from './errors.js';

export interface ChainLimits {
  /** Requests of one meeting admitted and not answered yet (the one running included). */
  perMeetingRequests: number;
  /** Their audio bytes. */
  perMeetingBytes: number;
  /** Audio bytes of every meeting's waiting requests together. */
  totalBytes: number;
}

export const DEFAULT_CHAIN_LIMITS: ChainLimits = {
  perMeetingRequests: 8,
  perMeetingBytes: 4 * 1024 * 1024,
  totalBytes: 64 * 1024 * 1024,
};

/** What the chains hold now (the metrics' gauges). */
export interface ChainLoad {
  meetings: number;
  requests: number;
  bytes: number;
}

/** Which bound refused a request (the metrics' label). */
export type BusyReason = 'meeting_requests' | 'meeting_bytes' | 'total_bytes';

interface Chain {
  tail: Promise<unknown>;
  requests: number;
  bytes: number;
}

export class BoundedChains {
  private readonly chains = new Map<string, Chain>();
  private bytes = 0;

  constructor(
    private readonly limits: ChainLimits = DEFAULT_CHAIN_LIMITS,
    private readonly onBusy: (reason: BusyReason) => void = () => {},
  ) {}

  /**
   * Runs `work` after the meeting's requests admitted before it, or refuses it at once when the
   * bounds are reached. `bytes`: the audio it holds while it waits (0 for a finish or a delete).
   */
  run<T>(meetingId: string, bytes: number, work: () => Promise<T>): Promise<T> {
    const chain = this.chains.get(meetingId) ?? { tail: Promise.resolve(), requests: 0, bytes: 0 };
    const refused = this.refusal(chain, bytes);
    if (refused) {
      this.onBusy(refused.reason);
      return Promise.reject(recordingErrors.busy(meetingId, refused.why));
    }
    chain.requests++;
    chain.bytes += bytes;
    this.bytes += bytes;
    this.chains.set(meetingId, chain);
    const result = chain.tail.then(work);
    // The chain goes on whether this request fails or not; its caller sees the failure.
    chain.tail = result.then(
      () => undefined,
      () => undefined,
    );
    void chain.tail.then(() => {
      chain.requests--;
      chain.bytes -= bytes;
      this.bytes -= bytes;
      if (chain.requests === 0) this.chains.delete(meetingId);
    });
    return result;
  }

  load(): ChainLoad {
    let requests = 0;
    for (const chain of this.chains.values()) requests += chain.requests;
    return { meetings: this.chains.size, requests, bytes: this.bytes };
  }

  /** Resolves once every request admitted so far has been answered. */
  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()].map((chain) => chain.tail));
  }

  private refusal(chain: Chain, bytes: number): { reason: BusyReason; why: string } | null {
    const { perMeetingRequests, perMeetingBytes, totalBytes } = this.limits;
    if (chain.requests >= perMeetingRequests) {
      return { reason: 'meeting_requests', why: `${chain.requests} requests of this meeting are waiting already` };
    }
    // One request alone may exceed a bound (a chunk is at most 512 KiB): it waits alone then.
    if (chain.requests > 0 && chain.bytes + bytes > perMeetingBytes) {
      return { reason: 'meeting_bytes', why: `${chain.bytes} bytes of this meeting's audio are waiting already` };
    }
    if (this.bytes > 0 && this.bytes + bytes > totalBytes) {
      return { reason: 'total_bytes', why: `${this.bytes} bytes of audio are waiting on this replica already` };
    }
    return null;
  }
}
