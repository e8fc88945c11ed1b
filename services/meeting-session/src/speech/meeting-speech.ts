/**
 * One meeting's speech: what the bot was asked to say, said one after the other in the order
 * asked. A text is synthesized first (the instance's engine), audio played as given; each through
 * the bot's voice (microphone on, speech, microphone off). `interrupt` cuts what is being said and
 * drops what waits, then says the new one. What happens is told through `events`: started,
 * finished (or interrupted), failed with why, and a text said becomes the bot's transcript segment.
 */
import type { BotVoice, SpeechEnd } from './bot-voice.js';
import type { Synthesizer } from './text-to-speech.js';

export interface SpeechRequest {
  text?: string;
  /** The file's bytes (WAV, Ogg, MP3). */
  audio?: Uint8Array;
  voice?: string;
}

export interface SpeechEvents {
  started(request: { text: string | null; at: Date; durationMs: number }): void;
  finished(request: { text: string | null; end: SpeechEnd }): void;
  failed(request: { text: string | null; reason: string }): void;
  /** A text the bot said (or began to: interrupted), from `at`: the bot's transcript segment. */
  said(text: string, at: Date): void;
}

interface Queued {
  request: SpeechRequest;
  /** Aborts its synthesis when it is dropped. */
  abort: AbortController;
}

export class MeetingSpeech {
  private readonly queue: Queued[] = [];
  private current: Queued | null = null;
  private running = false;
  private closed = false;
  /** Set once the bot said something: its own captions from then on are not a participant's. */
  private spoke = false;

  constructor(
    private readonly synthesizer: Synthesizer | null,
    private readonly voice: () => BotVoice | null,
    private readonly events: SpeechEvents,
  ) {}

  get hasSpoken(): boolean {
    return this.spoke;
  }

  /** Queues a request (after dropping everything before it, with `interrupt`). */
  enqueue(request: SpeechRequest, interrupt = false): void {
    if (this.closed) return;
    if (interrupt) {
      // What waited is dropped, each said so (finished, interrupted before it began).
      for (const dropped of this.queue.splice(0)) {
        dropped.abort.abort();
        this.events.finished({ text: dropped.request.text ?? null, end: 'interrupted' });
      }
      if (this.current) {
        this.current.abort.abort();
        void this.voice()?.interrupt();
      }
    }
    this.queue.push({ request, abort: new AbortController() });
    if (!this.running) void this.run();
  }

  /** The meeting is over: nothing more is said. */
  close(): void {
    this.closed = true;
    for (const dropped of this.queue.splice(0)) dropped.abort.abort();
    this.current?.abort.abort();
    if (this.current) void this.voice()?.interrupt();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      for (let next = this.queue.shift(); next && !this.closed; next = this.queue.shift()) {
        this.current = next;
        await this.sayOne(next);
        this.current = null;
      }
    } finally {
      this.running = false;
    }
  }

  private async sayOne({ request, abort }: Queued): Promise<void> {
    const text = request.text ?? null;
    let audio: Uint8Array;
    try {
      if (request.audio) audio = request.audio;
      else if (!this.synthesizer) throw new Error('no speech engine is configured (TTS_BASE_URL)');
      else audio = await this.synthesizer.synthesize(request.text ?? '', request.voice ?? null, abort.signal);
    } catch (err) {
      if (abort.signal.aborted) return this.events.finished({ text, end: 'interrupted' });
      return this.events.failed({ text, reason: reasonOf(err) });
    }
    if (abort.signal.aborted) return this.events.finished({ text, end: 'interrupted' });
    const voice = this.voice();
    if (!voice) return this.events.failed({ text, reason: 'the bot is not in the call' });
    let at: Date | null = null;
    try {
      const end = await voice.say(audio, (durationMs) => {
        at = new Date();
        this.spoke = true;
        this.events.started({ text, at, durationMs });
      });
      if (text !== null && at) this.events.said(text, at);
      this.events.finished({ text, end: abort.signal.aborted ? 'interrupted' : end });
    } catch (err) {
      if (text !== null && at) this.events.said(text, at);
      if (at && abort.signal.aborted) return this.events.finished({ text, end: 'interrupted' });
      this.events.failed({ text, reason: reasonOf(err) });
    }
  }
}

const reasonOf = (err: unknown) =>
  err instanceof Error
    ? /Unable to decode|decodeAudioData|EncodingError/i.test(err.message)
      ? 'the audio could not be decoded (WAV, Ogg or MP3 expected)'
      : err.message.replace(/^Error: /, '').slice(0, 300)
    : String(err);
