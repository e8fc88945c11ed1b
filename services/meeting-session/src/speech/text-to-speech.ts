/**
 * The client of any OpenAI-compatible speech output engine: `POST <base>/audio/speech` with
 * `{model, input, voice, response_format: "wav"}`, answered with the audio file. One attempt per
 * request (a late voice is worth less than a clear failure: the caller gets speech_failed and may
 * ask again). Errors never carry the API key nor a URL's credentials.
 */
import { redactUrls } from '@notetaker/observability';
import type { TextToSpeechSettings } from './text-to-speech-config.js';

/** Audio over this is refused: the page decodes it whole (several minutes of WAV at 24 kHz). */
const MAX_AUDIO_BYTES = 32 * 1024 * 1024;

export class TextToSpeechError extends Error {
  override name = 'TextToSpeechError';
}

export interface Synthesizer {
  /** The audio file (WAV unless the engine ignores response_format: the page decodes what it gets). */
  synthesize(text: string, voice: string | null, signal?: AbortSignal): Promise<Uint8Array>;
}

export class TextToSpeech implements Synthesizer {
  constructor(private readonly settings: TextToSpeechSettings) {}

  async synthesize(text: string, voice: string | null, signal?: AbortSignal): Promise<Uint8Array> {
    const { baseUrl, apiKey, model, timeoutMs } = this.settings;
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${baseUrl}/audio/speech`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        body: JSON.stringify({ model, input: text, voice: voice ?? this.settings.voice, response_format: 'wav' }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (timeout.aborted) throw new TextToSpeechError(`the speech engine did not answer in ${timeoutMs} ms`);
      const why = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new TextToSpeechError(`the speech engine could not be reached: ${redactUrls(why)}`);
    }
    if (!res.ok) {
      const head = await readAtMost(res, 300).catch(() => null);
      const body = head ? Buffer.from(head.bytes).toString('utf8') : '';
      throw new TextToSpeechError(`the speech engine answered ${res.status}${body ? `: ${redactUrls(body)}` : ''}`);
    }
    const { bytes: audio, cut } = await readAtMost(res, MAX_AUDIO_BYTES);
    if (cut) throw new TextToSpeechError('the speech engine answered over 32 MB of audio');
    if (audio.byteLength === 0) throw new TextToSpeechError('the speech engine answered no audio');
    return audio;
  }
}

/** At most `max` bytes of the body, read as they come (an answer past it is not held whole); `cut`: there was more. */
async function readAtMost(res: Response, max: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = res.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(0), cut: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      size = max;
      await reader.cancel();
      return { bytes: Buffer.concat(chunks, size), cut: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { bytes: Buffer.concat(chunks, size), cut: false };
}
