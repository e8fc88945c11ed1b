/**
 * The client of any OpenAI-compatible speech engine (`POST <base>/audio/transcriptions`), shared by
 * every meeting of a worker process.
 *
 * At most `concurrency` requests are in flight. A final (a whole utterance, for the transcript)
 * waits its turn in FIFO order and is tried up to three times: rate limits (429, honouring
 * Retry-After), the engine's own failures (5xx), no answer in `timeoutMs` and network errors are
 * passing troubles. A partial (the live caption of an utterance still growing) is worth nothing
 * late: it is tried once, and refused at once (`SpeechEngineBusy`) when every slot is taken, so
 * partials never queue ahead of finals nor pile up behind a slow engine.
 *
 * A final holds its slot through its backoff waits: the engine asked for fewer requests, and the
 * next ones would meet the same limit.
 *
 * Finals held (waiting or being sent) are bounded in bytes and count, for all meetings and for each
 * (queued-audio.ts, STT_MAX_QUEUED_SECONDS, STT_MEETING_MAX_QUEUED_SECONDS): one past a bound is
 * refused at once, unsent (`SpeechEngineQueueFull`), so a slow engine holds bounded memory.
 *
 * One request, one answer: its attempts go one after the other, an attempt that timed out is
 * aborted (its connection closed, a late answer to it never read) before the next is sent, and
 * every attempt carries the request's id as `Idempotency-Key`, so that an engine or a gateway that
 * keeps them answers a retry of work it did with that work instead of doing it twice.
 *
 * Errors never carry the API key, nor a URL's credentials or secret parameters.
 */
import { randomUUID } from 'node:crypto';
import { redactUrls } from '@notetaker/observability';
import { heldAudio } from './held-audio.js';
import { QueuedAudio } from './queued-audio.js';
import type { SpeechEngineSettings } from './speech-engine-config.js';
import { encodeWav } from './wav.js';

export type SpeechEngineErrorKind = 'unavailable' | 'refused' | 'busy';

/**
 * `unavailable`: no usable answer after the attempts (timeouts, 5xx, 429, network);
 * `refused`: the engine said no to this request (4xx: bad key, unsupported audio or model);
 * `busy`: nothing was sent: a partial found every slot taken, or a final found the queue full.
 */
export class SpeechEngineError extends Error {
  constructor(
    readonly kind: SpeechEngineErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SpeechEngineError';
  }
}

export class SpeechEngineBusy extends SpeechEngineError {
  constructor() {
    super('busy', 'speech engine busy: every request slot is taken, the partial is dropped');
    this.name = 'SpeechEngineBusy';
  }
}

/** A final refused unsent: the engine already holds its bound of audio, this meeting's or every meeting's. */
export class SpeechEngineQueueFull extends SpeechEngineError {
  constructor(
    readonly bound: 'meeting_queue_full' | 'worker_queue_full',
    queuedSeconds: number,
  ) {
    const whose = bound === 'meeting_queue_full' ? "this meeting's" : "the worker's meetings'";
    const setting = bound === 'meeting_queue_full' ? 'STT_MEETING_MAX_QUEUED_SECONDS' : 'STT_MAX_QUEUED_SECONDS';
    super(
      'busy',
      `the speech engine is behind: ${Math.round(queuedSeconds)} s of ${whose} speech wait for it (${setting})`,
    );
    this.name = 'SpeechEngineQueueFull';
  }
}

export interface SpeechAudio {
  pcm: Int16Array;
  sampleRate: number;
}

export interface TranscribeOptions {
  /** BCP 47 (`de-DE`); sent as its ISO-639-1 language (`de`). Null or absent: the engine detects it. */
  language?: string | null;
  priority: 'final' | 'partial';
  /** Aborts the wait for a slot, the request and the retries (rejects with the signal's reason). */
  signal?: AbortSignal;
  /** This request's identity, the same on each of its attempts (Idempotency-Key); a new one when absent. */
  id?: string;
  /** Whose share of the queue a final takes (a meeting's key); without one, the worker's alone. */
  meeting?: string;
}

export interface Transcription {
  text: string;
  /** The successful HTTP exchange alone (upload, decoding, answer): the caller's lag minus the engine's. */
  engineMs: number;
  attempts: number;
}

export interface SpeechEngineTuning {
  /** Attempts for a final. Default 3. */
  finalAttempts?: number;
  /** The first retry's wait before jitter; doubles each time. Default 500 ms. */
  backoffMs?: number;
  /** The longest wait between attempts, Retry-After included. Default 30 s. */
  maxBackoffMs?: number;
}

const DEFAULT_TUNING: Required<SpeechEngineTuning> = { finalAttempts: 3, backoffMs: 500, maxBackoffMs: 30_000 };
/** Finals held at most, beside the bytes: a flood of short utterances is bounded too. */
const MAX_QUEUED_FINALS = 1_000;
const MEETING_MAX_QUEUED_FINALS = 100;

/** The reason an attempt failed, and whether another may succeed. */
interface AttemptFailure {
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  message: string;
}

export class SpeechEngine {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly tuning: Required<SpeechEngineTuning>;
  private readonly url: string;
  private readonly queued: QueuedAudio;

  constructor(
    private readonly settings: SpeechEngineSettings,
    tuning: SpeechEngineTuning = {},
  ) {
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
    this.url = `${settings.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
    const bytesOf = (seconds: number) => seconds * PCM_BYTES_PER_SECOND;
    this.queued = new QueuedAudio({
      maxBytes: bytesOf(settings.maxQueuedSeconds),
      meetingMaxBytes: bytesOf(settings.meetingMaxQueuedSeconds),
      maxItems: MAX_QUEUED_FINALS,
      meetingMaxItems: MEETING_MAX_QUEUED_FINALS,
    });
  }

  /** Requests now being sent or retried, finals waiting for a slot, and the finals' PCM held (waiting or sent). */
  get load(): { inFlight: number; waiting: number; queuedBytes: number } {
    return { inFlight: this.inFlight, waiting: this.waiting.length, queuedBytes: this.queued.held().bytes };
  }

  /** What a meeting's finals hold here: their PCM's bytes and their count. */
  heldFor(meeting: string): { bytes: number; items: number } {
    return this.queued.held(meeting);
  }

  async transcribe(audio: SpeechAudio, options: TranscribeOptions): Promise<Transcription> {
    options.signal?.throwIfAborted();
    let giveBack = () => {};
    if (options.priority === 'partial') {
      // Partials may hold half the slots (all of one): a final never waits long behind them.
      if (this.inFlight >= Math.max(1, Math.ceil(this.settings.concurrency / 2))) throw new SpeechEngineBusy();
      this.inFlight++;
    } else {
      const taken = this.queued.take(audio.pcm.byteLength, options.meeting);
      if (typeof taken === 'string') {
        const held = this.queued.held(taken === 'meeting_queue_full' ? options.meeting : undefined);
        throw new SpeechEngineQueueFull(taken, held.bytes / PCM_BYTES_PER_SECOND);
      }
      giveBack = taken;
      await this.slot(audio.pcm.byteLength, options.signal).catch((err: unknown) => {
        giveBack();
        throw err;
      });
    }
    try {
      const attempts = options.priority === 'partial' ? 1 : this.tuning.finalAttempts;
      return await this.withRetries(audio, { ...options, id: options.id ?? randomUUID() }, attempts);
    } finally {
      this.release();
      giveBack();
    }
  }

  private slot(bytes: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.inFlight < this.settings.concurrency) {
      this.inFlight++;
      return Promise.resolve();
    }
    const left = heldAudio.hold('waiting', bytes);
    return new Promise<void>((resolve, reject) => {
      const granted = () => {
        left();
        signal?.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = () => {
        left();
        const at = this.waiting.indexOf(granted);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal!.reason);
      };
      this.waiting.push(granted);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /** Hands the slot to the first waiting final, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }

  private async withRetries(
    audio: SpeechAudio,
    options: TranscribeOptions & { id: string },
    attempts: number,
  ): Promise<Transcription> {
    const file = encodeWav(audio.pcm, audio.sampleRate);
    const sent = heldAudio.hold('sending', audio.pcm.byteLength + file.byteLength);
    try {
      let last: AttemptFailure | null = null;
      // One after the other: an attempt is over (answered, failed, or timed out and aborted) before the next.
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (last) await sleep(this.backoff(attempt - 1, last.retryAfterMs), options.signal);
        const result = await this.attempt(file, options);
        if ('text' in result) return { ...result, attempts: attempt };
        last = result;
        if (!result.retryable) throw new SpeechEngineError('refused', this.redact(result.message), result.status);
      }
      const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
      throw new SpeechEngineError('unavailable', this.redact(`${last!.message} (${tries})`), last!.status);
    } finally {
      sent();
    }
  }

  /** Exponential with full jitter over its upper half; a Retry-After is the floor. */
  private backoff(retry: number, retryAfterMs: number | undefined): number {
    const exponential = this.tuning.backoffMs * 2 ** (retry - 1);
    const jittered = exponential / 2 + Math.random() * (exponential / 2);
    return Math.min(this.tuning.maxBackoffMs, Math.max(jittered, retryAfterMs ?? 0));
  }

  private async attempt(
    file: Uint8Array<ArrayBuffer>,
    options: TranscribeOptions & { id: string },
  ): Promise<{ text: string; engineMs: number } | AttemptFailure> {
    const form = new FormData();
    form.set('file', new Blob([file], { type: 'audio/wav' }), 'utterance.wav');
    form.set('model', this.settings.model);
    const language = isoLanguage(options.language);
    if (language) form.set('language', language);
    form.set('response_format', 'json');

    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers: Record<string, string> = { Accept: 'application/json', 'Idempotency-Key': options.id };
    if (this.settings.apiKey) headers.Authorization = `Bearer ${this.settings.apiKey}`;
    const started = performance.now();
    try {
      const response = await fetch(this.url, { method: 'POST', body: form, headers, signal });
      const body = await response.text();
      const engineMs = Math.round(performance.now() - started);
      if (response.ok) return parseText(body, engineMs);
      return {
        retryable: response.status === 429 || response.status >= 500,
        status: response.status,
        retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
        message: `speech engine answered ${response.status}: ${engineMessage(body)}`,
      };
    } catch (error) {
      // The caller's abort ends everything; the attempt's own timeout is a passing trouble.
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.aborted) {
        return { retryable: true, message: `speech engine gave no answer within ${this.settings.timeoutMs} ms` };
      }
      const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
      return { retryable: true, message: `speech engine unreachable: ${cause}` };
    }
  }

  /** Without the key, and without a URL's credentials or secret parameters (fetch names the URL it refused). */
  private redact(message: string): string {
    const key = this.settings.apiKey;
    return redactUrls(key ? message.split(key).join('[redacted]') : message);
  }
}

/** The worker's PCM: 16 kHz, 16-bit mono. */
const PCM_BYTES_PER_SECOND = 32_000;

/** `de-DE` -> `de`; anything that is not a two-letter language is left to the engine's detection. */
export function isoLanguage(bcp47: string | null | undefined): string | null {
  const primary = bcp47?.trim().split(/[-_]/)[0].toLowerCase();
  return primary && /^[a-z]{2}$/.test(primary) ? primary : null;
}

function parseText(body: string, engineMs: number): { text: string; engineMs: number } | AttemptFailure {
  try {
    const parsed: unknown = JSON.parse(body);
    const text = (parsed as { text?: unknown } | null)?.text;
    if (typeof text === 'string') return { text: text.trim(), engineMs };
  } catch {
    /* reported below */
  }
  return { retryable: false, status: 200, message: 'speech engine answered 200 without a JSON `text`' };
}

/** The engine's own words from an OpenAI-style `{error: {message}}`, else the start of the body. */
function engineMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    /* not JSON */
  }
  return body.slice(0, 300) || '(empty body)';
}

/** Retry-After in seconds (what OpenAI sends) or an HTTP date. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
