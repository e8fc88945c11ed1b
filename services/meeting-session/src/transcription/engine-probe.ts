/**
 * Whether the speech engine answers at all, for /readyz and the log: `GET <base>/models` at start
 * and every minute. Any HTTP answer counts as reachable (whisper.cpp's server has no /models, a key
 * may be refused there and accepted for transcriptions); only no answer is unreachable. Readiness
 * never fails for it: the meetings go on on captions.
 */
import { redactUrls, type Logger } from '@notetaker/observability';

export type AudioTranscriptionState = 'off' | 'reachable' | 'unreachable';

const PROBE_EVERY_MS = 60_000;
const PROBE_TIMEOUT_MS = 5_000;

export class EngineProbe {
  private current: AudioTranscriptionState = 'unreachable';
  private timer: NodeJS.Timeout | null = null;
  private checked = false;

  constructor(
    private readonly engine: { baseUrl: string; apiKey: string | null } | null,
    private readonly logger: Logger,
  ) {}

  get state(): AudioTranscriptionState {
    return this.engine ? this.current : 'off';
  }

  start(): void {
    if (!this.engine || this.timer) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), PROBE_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async check(): Promise<void> {
    const { baseUrl, apiKey } = this.engine!;
    let next: AudioTranscriptionState = 'reachable';
    let why = '';
    try {
      const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, {
        headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      await res.body?.cancel();
    } catch (err) {
      next = 'unreachable';
      // fetch's error may name the URL: never its credentials.
      why = redactUrls(
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err),
      );
    }
    if (next === this.current && this.checked) return;
    this.checked = true;
    this.current = next;
    const where = { engine: new URL(baseUrl).origin };
    if (next === 'reachable') this.logger.info(where, 'the speech engine answers');
    else
      this.logger.warn(
        { ...where, why },
        'the speech engine does not answer: speech the captions miss is not transcribed',
      );
  }
}
