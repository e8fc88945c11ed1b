/**
 * A real speech output engine on 127.0.0.1 for tests, speaking OpenAI's `POST /v1/audio/speech`
 * (`{model, input, voice, response_format}` -> the audio file): espeak-ng says `input` into a WAV.
 * Voices: OpenAI's names each map to an espeak-ng voice (any other name is taken as espeak-ng's
 * own, "en-us+f2"). A test steers it beside HTTP (`failNext`, `delayMs`) and reads `requests`
 * (what came, what it answered, how long the engine took: `engineMs`, which benchmarks subtract).
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SpeechRequestLog {
  at: number;
  model: string | null;
  input: string | null;
  voice: string | null;
  authorization: string | null;
  status: number | null;
  /** From the request's arrival to its answer. */
  engineMs: number | null;
}

export interface SpeechOutputEngine {
  /** The base URL, ending in /v1 (TTS_BASE_URL). */
  url: string;
  apiKey: string | null;
  requests: SpeechRequestLog[];
  /** The next `count` requests are answered `status` with an OpenAI-style error. */
  failNext(count: number, status: number): void;
  /** Each answer waits this long first. */
  delayMs: number;
  /** TTS_* for a stack using this engine. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

const OPENAI_VOICES: Record<string, string> = {
  alloy: 'en-us+m3',
  echo: 'en-us+m7',
  fable: 'en-gb+m1',
  onyx: 'en-us+m1',
  nova: 'en-us+f2',
  shimmer: 'en-us+f4',
};

export async function startSpeechOutputEngine(options: { apiKey?: string } = {}): Promise<SpeechOutputEngine> {
  const scratch = await mkdtemp(join(tmpdir(), 'tts-engine-'));
  const requests: SpeechRequestLog[] = [];
  let failures: { count: number; status: number } | null = null;
  let counter = 0;
  const engine: SpeechOutputEngine = {
    url: '',
    apiKey: options.apiKey ?? null,
    requests,
    delayMs: 0,
    failNext: (count, status) => {
      failures = { count, status };
    },
    env: () => ({
      TTS_BASE_URL: engine.url,
      ...(engine.apiKey ? { TTS_API_KEY: engine.apiKey } : {}),
      TTS_MODEL: 'espeak-ng',
    }),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await rm(scratch, { recursive: true, force: true });
    },
  };
  const server = http.createServer((req, res) => void handle(req, res));
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = Date.now();
    const log: SpeechRequestLog = {
      at: started,
      model: null,
      input: null,
      voice: null,
      authorization: req.headers.authorization ?? null,
      status: null,
      engineMs: null,
    };
    const answer = (status: number, body: Buffer | string, type: string) => {
      log.status = status;
      log.engineMs = Date.now() - started;
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const error = (status: number, message: string) =>
      answer(status, JSON.stringify({ error: { message, type: 'invalid_request_error' } }), 'application/json');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/audio/speech') return error(404, `no route ${req.method} ${req.url}`);
    requests.push(log);
    if (engine.apiKey && log.authorization !== `Bearer ${engine.apiKey}`) return error(401, 'Incorrect API key');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return error(400, 'the body is not JSON');
    }
    log.model = typeof body.model === 'string' ? body.model : null;
    log.input = typeof body.input === 'string' ? body.input : null;
    log.voice = typeof body.voice === 'string' ? body.voice : null;
    if (!log.input) return error(400, 'input is required');
    if (engine.delayMs) await new Promise((resolve) => setTimeout(resolve, engine.delayMs));
    if (failures && failures.count > 0) {
      failures.count--;
      return error(failures.status, 'failed on purpose');
    }
    const voice = OPENAI_VOICES[log.voice ?? 'alloy'] ?? log.voice ?? 'en-us+m3';
    const file = join(scratch, `${++counter}.wav`);
    try {
      await new Promise<void>((resolve, reject) => {
        const child = execFile('espeak-ng', ['-v', voice, '-s', '165', '-w', file, '--stdin'], (err, _out, stderr) =>
          err ? reject(new Error(stderr || err.message)) : resolve(),
        );
        child.stdin?.end(log.input);
      });
      const wav = await readFile(file);
      await rm(file, { force: true });
      answer(200, wav, 'audio/wav');
    } catch (err) {
      error(500, `espeak-ng: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  engine.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return engine;
}

/** Call inside `describe`: started before the suite (then `started`, e.g. to fill a stack's env), closed after. */
export function speechOutputForSuite(
  options: { apiKey?: string },
  started?: (engine: SpeechOutputEngine) => void,
): () => SpeechOutputEngine {
  let engine: SpeechOutputEngine | undefined;
  before(async () => {
    engine = await startSpeechOutputEngine(options);
    started?.(engine);
  });
  afterEach(() => {
    if (!engine) return;
    engine.requests.length = 0;
    engine.delayMs = 0;
    engine.failNext(0, 500);
  });
  after(async () => {
    await engine?.close();
  });
  return () => engine!;
}
