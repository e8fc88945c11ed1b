/**
 * A real speech engine on 127.0.0.1 for tests, speaking OpenAI's `POST /v1/audio/transcriptions`:
 * it decodes the uploaded audio (a 16 kHz WAV read as it is, any other file by ffmpeg; then
 * pocketsphinx with a grammar of the sentences the test will speak), so what it answers is what was
 * heard, not what a script says was played.
 *
 * Text: a sentence heard whole comes back as written (casing, punctuation); a cut one as its first
 * words as written without end punctuation; silence or steady noise as "" (speech-presence.ts). Only the given sentences can
 * be heard, in US English whatever `language` says (it is checked to be ISO-639-1 and logged).
 *
 * A test steers it beside HTTP: `failNext` (OpenAI-style errors, Retry-After), `limitNewAudio` (a
 * 429 for audio not seen before), `delayMs`, `answerLate` (the work done, the answer sent late:
 * after a client's timeout), `hang`, and reads `requests` (what came, what it answered, a hash of
 * the upload, its Idempotency-Key, how long the decode took).
 *
 * Measured on a 2-vCPU machine: a 3 s espeak-ng utterance decodes in ~100 ms of CPU (`decodeMs`:
 * one pocketsphinx process a request, so concurrent requests are decoded apart and side by side);
 * a file other than the worker's 16 kHz WAV adds an ffmpeg process, ~160 ms (audio-input.ts).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSentenceGrammar } from './sentence-grammar.js';
import { decodeWithGrammar, FILLERS, type GrammarFiles } from './pocketsphinx.js';
import { pcmSeconds, toDecoderPcm, UndecodableAudio } from './audio-input.js';
import { holdsSpeech } from './speech-presence.js';

export interface SpeechEngineOptions {
  /** Every sentence the engine must be able to hear: common English words, numbers spelt out. */
  sentences: readonly string[];
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
}

/** One request as the engine saw it; the answer's fields stay null until it is sent. */
export interface TranscriptionRequestLog {
  /** Epoch ms when the request's body had arrived. */
  at: number;
  model: string | null;
  language: string | null;
  responseFormat: string | null;
  /** Seconds of audio decoded (null when not decoded: refused, failed on purpose, abandoned). */
  audioSeconds: number | null;
  /** The Authorization header as received. */
  authorization: string | null;
  /** The Idempotency-Key header: a client's retries of one request carry the same. */
  idempotencyKey: string | null;
  /** SHA-256 of the uploaded file: a retry of the same audio carries the same. */
  fileSha256: string | null;
  status: number | null;
  /** From the request's arrival to its answer, delays and hangs included. */
  engineMs: number | null;
  /** The decode alone: reading the file (ffmpeg for other than a 16 kHz WAV) and pocketsphinx. */
  decodeMs: number | null;
  text: string | null;
  /** The client went away before the answer (a timeout or an abort on its side). */
  abandoned: boolean;
}

export interface FailureOptions {
  /** Sent as the Retry-After header, in seconds. */
  retryAfter?: number;
}

export interface SpeechEngine {
  /** The base URL, ending in /v1 (STT_BASE_URL). */
  url: string;
  apiKey: string | null;
  requests: TranscriptionRequestLog[];
  /** The next `count` requests that pass the key check are answered `status` with an OpenAI-style error. */
  failNext(count: number, status: number, options?: FailureOptions): void;
  /**
   * While set, audio the engine has not seen before is answered 429 with this Retry-After (seconds)
   * and the same audio sent again is served: a final, tried again, gets through; a partial, tried
   * once, never does.
   */
  limitNewAudio: number | null;
  /** Every request waits this long before it is decoded. */
  delayMs: number;
  /**
   * The next `count` requests are decoded at once and answered `ms` later, whether or not their
   * client is still there (an engine that did the work after the client gave up): their log has
   * the answer, and `abandoned` if nobody read it.
   */
  answerLate(count: number, ms: number): void;
  /** While true, requests are held unanswered; set false (or `reset()`) and they go on. */
  hang: boolean;
  /** No failures, delay or hang any more; held requests are answered. */
  reset(): void;
  /** STT_BASE_URL and, with a key, STT_API_KEY for this engine. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

const RESPONSE_FORMATS = ['json', 'text', 'verbose_json'] as const;
const ROUTE = '/v1/audio/transcriptions';

function errorBody(status: number, message: string) {
  const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const code = status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null;
  return { error: { message, type, param: null, code } };
}

const FAILURE_MESSAGES: Record<number, string> = {
  429: 'Rate limit reached for requests. Please try again later.',
  500: 'The server had an error while processing your request.',
  503: 'The engine is currently overloaded, please try again later.',
};

export async function startSpeechEngine(options: SpeechEngineOptions): Promise<SpeechEngine> {
  const grammar = buildSentenceGrammar(options.sentences);
  const dir = await mkdtemp(join(tmpdir(), 'speech-engine-'));
  const files: GrammarFiles = {
    jsgfPath: join(dir, 'sentences.gram'),
    dictionaryPath: join(dir, 'words.dict'),
    fillersPath: join(dir, 'fillers.dict'),
  };
  await writeFile(files.jsgfPath, grammar.jsgf);
  await writeFile(files.dictionaryPath, grammar.dictionary);
  await writeFile(files.fillersPath, FILLERS);

  const apiKey = options.apiKey ?? null;
  const failures: Array<{ status: number; retryAfter?: number }> = [];
  const lateAnswers: number[] = [];
  const limitedAudio = new Set<string>();
  let held: Array<() => void> = [];
  let hang = false;
  let closed = false;
  let served = 0;

  const release = () => {
    const waiting = held;
    held = [];
    for (const go of waiting) go();
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const arrived = performance.now();
    const log: TranscriptionRequestLog = {
      at: Date.now(),
      model: null,
      language: null,
      responseFormat: null,
      audioSeconds: null,
      authorization: req.headers.authorization ?? null,
      idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
      fileSha256: null,
      status: null,
      engineMs: null,
      decodeMs: null,
      text: null,
      abandoned: false,
    };
    engine.requests.push(log);
    res.on('close', () => {
      if (!res.writableFinished) log.abandoned = true;
    });
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      log.status = status;
      log.engineMs = Math.round(performance.now() - arrived);
      if (res.destroyed) return;
      const text = typeof payload === 'string';
      res.writeHead(status, {
        'Content-Type': text ? 'text/plain; charset=utf-8' : 'application/json',
        'openai-processing-ms': String(log.engineMs),
        ...headers,
      });
      res.end(text ? payload : JSON.stringify(payload));
    };

    const lateMs = lateAnswers.shift() ?? 0;
    if (apiKey !== null && log.authorization !== `Bearer ${apiKey}`) {
      const message = log.authorization
        ? 'Incorrect API key provided.'
        : "You didn't provide an API key. You need to provide your API key in an Authorization header.";
      return answer(401, errorBody(401, message));
    }
    let form: FormData;
    try {
      const type = req.headers['content-type'] ?? '';
      form = await new Response(new Uint8Array(body), { headers: { 'content-type': type } }).formData();
    } catch {
      return answer(400, errorBody(400, 'The body must be multipart/form-data.'));
    }
    const file = form.get('file');
    const upload = file && typeof file !== 'string' ? Buffer.from(await file.arrayBuffer()) : null;
    if (upload) log.fileSha256 = createHash('sha256').update(upload).digest('hex');
    const limited = engine.limitNewAudio !== null && log.fileSha256 !== null && !limitedAudio.has(log.fileSha256);
    if (limited) limitedAudio.add(log.fileSha256!);
    const failure = limited ? { status: 429, retryAfter: engine.limitNewAudio! } : failures.shift();
    if (failure) {
      const headers: Record<string, string> =
        failure.retryAfter !== undefined ? { 'Retry-After': String(failure.retryAfter) } : {};
      const message = FAILURE_MESSAGES[failure.status] ?? `Failure ${failure.status} asked for by the test.`;
      return answer(failure.status, errorBody(failure.status, message), headers);
    }

    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : null;
    };
    log.model = field('model');
    log.language = field('language');
    log.responseFormat = field('response_format');
    if (!log.model) return answer(400, errorBody(400, 'you must provide a model parameter'));
    if (!upload) return answer(400, errorBody(400, 'you must provide a file'));
    if (log.language !== null && !/^[a-z]{2}$/.test(log.language)) {
      const message = `Invalid language '${log.language}'. Language parameter must be specified in ISO-639-1 format.`;
      return answer(400, errorBody(400, message));
    }
    const format = log.responseFormat ?? 'json';
    if (!(RESPONSE_FORMATS as readonly string[]).includes(format)) {
      return answer(400, errorBody(400, `response_format must be one of ${RESPONSE_FORMATS.join(', ')}`));
    }

    if (hang) await new Promise<void>((go) => held.push(go));
    if (engine.delayMs > 0) await new Promise((wait) => setTimeout(wait, engine.delayMs));
    if (closed || log.abandoned) return;

    const decodeStart = performance.now();
    let pcm: Buffer;
    try {
      pcm = await toDecoderPcm(upload);
    } catch (error) {
      if (error instanceof UndecodableAudio) return answer(400, errorBody(400, error.message));
      throw error;
    }
    const words = holdsSpeech(pcm) ? await decodeWithGrammar(pcm, files, join(dir, `request-${++served}`)) : [];
    const segments = grammar.segments(words.map((w) => w.word));
    log.decodeMs = Math.round(performance.now() - decodeStart);
    log.audioSeconds = pcmSeconds(pcm);
    log.text = segments.map((s) => s.text).join(' ');
    if (lateMs > 0) await new Promise((wait) => setTimeout(wait, lateMs));
    if (closed) return;

    if (format === 'text') return answer(200, log.text);
    if (format === 'json') return answer(200, { text: log.text });
    answer(200, {
      task: 'transcribe',
      language: log.language ?? 'english',
      duration: log.audioSeconds,
      text: log.text,
      segments: segments.map((s, id) => ({ id, start: words[s.from].start, end: words[s.to - 1].end, text: s.text })),
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url?.split('?')[0];
      // What a readiness probe asks first (GET /v1/models); the key is checked as for transcriptions.
      if (req.method === 'GET' && path === '/v1/models') {
        const allowed = apiKey === null || req.headers.authorization === `Bearer ${apiKey}`;
        res.writeHead(allowed ? 200 : 401, { 'Content-Type': 'application/json' });
        const models = { object: 'list', data: [{ id: 'whisper-1', object: 'model', owned_by: 'test' }] };
        res.end(JSON.stringify(allowed ? models : errorBody(401, 'Incorrect API key provided.')));
        return;
      }
      if (req.method !== 'POST' || path !== ROUTE) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(errorBody(404, `no route ${req.method} ${req.url}`)));
        return;
      }
      handle(req, res, Buffer.concat(chunks)).catch((error: Error) => {
        if (res.headersSent || res.destroyed) return;
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(errorBody(500, `speech engine: ${error.message}`)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

  const engine: SpeechEngine = {
    url,
    apiKey,
    requests: [],
    delayMs: 0,
    limitNewAudio: null,
    get hang() {
      return hang;
    },
    set hang(value: boolean) {
      hang = value;
      if (!value) release();
    },
    answerLate(count, ms) {
      for (let i = 0; i < count; i++) lateAnswers.push(ms);
    },
    failNext(count, status, failure = {}) {
      for (let i = 0; i < count; i++) failures.push({ status, retryAfter: failure.retryAfter });
    },
    reset() {
      failures.length = 0;
      lateAnswers.length = 0;
      engine.limitNewAudio = null;
      engine.delayMs = 0;
      engine.hang = false;
    },
    env: () => ({ STT_BASE_URL: url, ...(apiKey !== null && { STT_API_KEY: apiKey }) }),
    async close() {
      closed = true;
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
  return engine;
}
