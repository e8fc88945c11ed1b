/**
 * One meeting's transcription from its audio: each remote track cut into utterances by voice
 * activity, each utterance sent to the speech engine when it ends (the final), and while it grows
 * about once a second (partials, stabilised by LocalAgreement). Finals are emitted in the order
 * their utterances ended, whatever order the engine answers in. A final's audio (the speech and
 * TAIL_MS after it) is all there once voice activity says `paused`, 150 ms before the pause that
 * ends the utterance is confirmed: it is sent then, and used if the utterance ends there; speech
 * coming back aborts it. So the engine's answer overlaps the confirmation, for the same words.
 *
 * Every utterance gets its final: one ends at its pause, at MAX_MS, when its track goes quiet
 * (the page says a track muted or ended: PcmQuiet), when its track stops delivering chunks for
 * STALLED_MS without a word (a renderer that stopped, a tap gone), and at `finish()` (the bot
 * leaves, the meeting ended). A track that stops with no pause after the last word (a platform
 * that stops sending when nobody speaks) would otherwise keep its utterance open until the
 * track's next sound, or the end of the meeting.
 *
 * It never stalls the meeting: an engine that fails gives a segment marked untranscribed (who
 * spoke, when) and one warning until it answers again; a spent budget stops the sending, with a
 * warning. Which utterances it transcribes is the source choice's say (source-choice.ts): in
 * `auto` with captions readable, ended utterances are held back a while instead, in case the
 * captions turn out to have missed them.
 */
import type { TranscriptSource, Untranscribed } from '@notetaker/contracts';
import type { PcmMessage } from '../recording/page-capture.js';
import { PCM_SAMPLE_RATE } from '../recording/page-capture.js';
import { LocalAgreement } from './local-agreement.js';
import { SpeechEngineError } from './speech-engine.js';
import type { SourceSwitch } from './source-choice.js';
import type { SpeakerLearner } from './speaker-learner.js';
import { TAIL_MS, VoiceActivity, type Utterance } from './voice-activity.js';

/** What the transcriber needs of a speech engine (speech-engine.ts). */
export interface SpeechToText {
  transcribe(
    audio: { pcm: Int16Array; sampleRate: number },
    options: { language?: string | null; priority: 'final' | 'partial'; signal?: AbortSignal },
  ): Promise<{ text: string; engineMs: number }>;
}

export interface HeardPartial {
  captionId: string;
  speaker: string;
  /** The committed words and the newest pass's rest. */
  text: string;
  /** The committed words alone: they no longer change. */
  stableText: string;
  timestamp: string;
}

export interface HeardFinal {
  speaker: string;
  text: string;
  timestamp: string;
  untranscribed?: Untranscribed;
}

export type Trouble = 'transcription_unavailable' | 'transcription_budget_exhausted';

export interface AudioTranscriberOptions {
  engine: SpeechToText;
  /** The meeting's language (BCP 47) or null for the engine's detection. */
  language: string | null;
  budgetSeconds: number;
  /** Who speaks: told when each track carries voice, asked whose an utterance is. */
  speakers: Pick<SpeakerLearner, 'heard' | 'audio' | 'speakerOf'>;
  /** Prefix of the partials' caption ids. */
  idPrefix: string;
  /** The source now (the actor's SourceChoice). */
  source: () => TranscriptSource;
  /** Whether captions could still turn out to be missing (auto): hold ended utterances back, else drop them. */
  holdBack: boolean;
  partial(partial: HeardPartial): void;
  final(final: HeardFinal): Promise<void>;
  trouble(trouble: Trouble, raised: boolean, detail: string): void;
  /** Seconds from a word spoken to its first showing (partial) or to its final, the engine's time left out. */
  lag?(kind: 'partial' | 'final', seconds: number): void;
  clock?: () => number;
}

export const PARTIAL_EVERY_MS = 1_000;
/** An utterance shorter than this is not worth a partial: its final comes soon. */
const MIN_PARTIAL_MS = 700;
/** In `auto`, how long an ended utterance is kept in case the captions prove to have missed it. */
const HOLD_MS = 30_000;
/** An utterance that began before captions stopped is taken over if this much of it came after. */
const TAKE_OVER_MIN_MS = 1_000;
/** Leaving, finals still with the engine after this are marked untranscribed. */
const FINISH_WAIT_MS = 15_000;
/** A track delivering nothing this long has stopped: its utterance under way ends (chunks come every 100 ms). */
export const STALLED_MS = 2_000;
const TICK_MS = 200;

interface Tracked {
  utterance: Utterance;
  id: string;
  agreement: LocalAgreement;
  partialInFlight: boolean;
  lastPartialAt: number;
  /** Where the last partial's audio ended: the audio after it is new to the next one. */
  shownUntil: number;
  /** It began while the audio was the source: it is finished from audio whatever comes next. */
  audioOwned: boolean;
  /** The final sent at the last pause, for the speech up to `speechToMs`. */
  early?: EarlyFinal;
}

type Heard = { text: string; engineMs: number } | { untranscribed: Untranscribed };

interface EarlyFinal {
  speechToMs: number;
  heard: Promise<Heard>;
  abort: AbortController;
}

export class AudioTranscriber {
  private readonly tracks = new Map<string, { activity: VoiceActivity; heardAt: number }>();
  private readonly open = new Map<Utterance, Tracked>();
  private held: Tracked[] = [];
  private chain: Promise<void> = Promise.resolve();
  private readonly aborts = new AbortController();
  private spentSeconds = 0;
  private budgetSpent = false;
  private engineDown = false;
  private utterances = 0;
  /** Audio transcribed up to here: caption turns that began before it are left out. */
  private audioCoveredUntil = 0;
  private readonly timer: NodeJS.Timeout;
  private lastTickAt: number;
  private readonly clock: () => number;

  constructor(private readonly options: AudioTranscriberOptions) {
    this.clock = options.clock ?? Date.now;
    this.lastTickAt = this.clock();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  /** One chunk from the page (PcmChunk), or word that a track went quiet (PcmQuiet). */
  push(chunk: PcmMessage): void {
    if ('quiet' in chunk) return this.tracks.get(chunk.track)?.activity.close();
    let track = this.tracks.get(chunk.track);
    if (!track) {
      const activity = new VoiceActivity(chunk.track, PCM_SAMPLE_RATE, {
        started: (utterance) => this.started(utterance),
        paused: (utterance) => this.paused(utterance),
        ended: (utterance) => this.ended(utterance),
      });
      track = { activity, heardAt: 0 };
      this.tracks.set(chunk.track, track);
    }
    this.options.speakers.audio(chunk.endMs);
    track.heardAt = this.clock();
    const bytes = Buffer.from(chunk.data, 'base64');
    const samples = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
    track.activity.push(samples, chunk.frame, chunk.endMs);
    for (const tracked of this.open.values()) {
      if (tracked.audioOwned) this.audioCoveredUntil = Math.max(this.audioCoveredUntil, tracked.utterance.endMs);
      // Speech came back after the pause: that final is for fewer words than the utterance has.
      if (tracked.early && tracked.early.speechToMs !== tracked.utterance.speechToMs) dropEarly(tracked);
    }
  }

  /** Whether a caption turn first seen at `at` repeats words the audio already gave (a seam). */
  coversCaptionFrom(at: number): boolean {
    return at < this.audioCoveredUntil;
  }

  /** The source changed: to audio, what was held back since the captions' last words is transcribed. */
  switched(change: SourceSwitch): void {
    if (change.source === 'audio') {
      for (const tracked of this.open.values()) tracked.audioOwned = true;
      const missed = this.held.filter(({ utterance }) => utterance.endMs - change.since >= TAKE_OVER_MIN_MS);
      for (const tracked of missed) this.transcribe(tracked);
    }
    this.held = [];
  }

  /** The meeting is over for the bot: utterances under way end, finals get a last while to come. */
  async finish(): Promise<void> {
    clearInterval(this.timer);
    for (const track of this.tracks.values()) track.activity.close();
    const deadline = setTimeout(() => this.aborts.abort(), FINISH_WAIT_MS);
    await this.chain;
    clearTimeout(deadline);
  }

  private started(utterance: Utterance): void {
    const audioOwned = this.options.source() === 'audio';
    this.options.speakers.heard(utterance);
    this.open.set(utterance, {
      utterance,
      id: `${this.options.idPrefix}_${++this.utterances}`,
      agreement: new LocalAgreement(),
      partialInFlight: false,
      lastPartialAt: this.clock(),
      shownUntil: utterance.startMs,
      audioOwned,
    });
  }

  private paused(utterance: Utterance): void {
    const tracked = this.open.get(utterance);
    if (!tracked || !(tracked.audioOwned || this.options.source() === 'audio')) return;
    dropEarly(tracked);
    const abort = new AbortController();
    tracked.early = { speechToMs: utterance.speechToMs, heard: this.heard(tracked, abort.signal), abort };
  }

  private ended(utterance: Utterance): void {
    const tracked = this.open.get(utterance);
    this.open.delete(utterance);
    if (!tracked) return;
    if (tracked.audioOwned || this.options.source() === 'audio') return this.transcribe(tracked);
    dropEarly(tracked);
    if (!this.options.holdBack) return;
    const now = this.clock();
    this.held = this.held.filter((held) => now - held.utterance.endMs < HOLD_MS);
    this.held.push(tracked);
  }

  private tick(): void {
    const now = this.clock();
    // A tick this late means this process was held up: chunks may be waiting, so no track counts as stopped.
    const punctual = now - this.lastTickAt < 3 * TICK_MS;
    this.lastTickAt = now;
    if (punctual) this.endStalled(now);
    this.sendPartials(now);
  }

  /** A track that stopped delivering with an utterance open: it ends with what it has. */
  private endStalled(now: number): void {
    for (const { activity, heardAt } of this.tracks.values()) {
      if (activity.open && now - heardAt >= STALLED_MS) activity.close();
    }
  }

  private sendPartials(now: number): void {
    for (const tracked of this.open.values()) {
      const { utterance } = tracked;
      if (!tracked.audioOwned && this.options.source() !== 'audio') continue;
      if (tracked.partialInFlight || now - tracked.lastPartialAt < PARTIAL_EVERY_MS) continue;
      if (utterance.endMs - utterance.startMs < MIN_PARTIAL_MS || !this.affords(utterance)) continue;
      tracked.partialInFlight = true;
      tracked.lastPartialAt = now;
      void this.partial(tracked);
    }
  }

  private async partial(tracked: Tracked): Promise<void> {
    const { utterance } = tracked;
    const newFrom = tracked.shownUntil;
    const audioTo = utterance.endMs;
    const pcm = utterance.samples();
    this.spend(pcm);
    try {
      const { text, engineMs } = await this.options.engine
        .transcribe(
          { pcm, sampleRate: PCM_SAMPLE_RATE },
          { language: this.options.language, priority: 'partial', signal: this.aborts.signal },
        )
        .catch((err: unknown) => {
          // Refused for want of a slot: nothing was sent, nothing spent.
          if (err instanceof SpeechEngineError && err.kind === 'busy')
            this.spentSeconds -= pcm.length / PCM_SAMPLE_RATE;
          throw err;
        });
      if (utterance.ended || !text.trim()) return;
      const shown = tracked.agreement.update(text);
      tracked.shownUntil = audioTo;
      // The average new word was spoken halfway through the audio this partial first covered.
      this.options.lag?.('partial', (this.clock() - engineMs - (newFrom + audioTo) / 2) / 1000);
      this.options.partial({
        captionId: tracked.id,
        speaker: this.options.speakers.speakerOf(utterance.track, utterance.speechFromMs, utterance.speechToMs),
        text: shown.text,
        stableText: shown.stable,
        timestamp: iso(utterance.speechFromMs),
      });
    } catch {
      // A partial that fails or finds the engine busy is skipped: the next one, or the final, follows.
    } finally {
      tracked.partialInFlight = false;
    }
  }

  /** Sends the whole utterance now; its final is emitted in its turn. */
  private transcribe(tracked: Tracked): void {
    const { utterance } = tracked;
    this.audioCoveredUntil = Math.max(this.audioCoveredUntil, utterance.endMs);
    const speaker = this.options.speakers.speakerOf(utterance.track, utterance.speechFromMs, utterance.speechToMs);
    const timestamp = iso(utterance.speechFromMs);
    const early = tracked.early?.speechToMs === utterance.speechToMs ? tracked.early : undefined;
    if (!early) dropEarly(tracked);
    const heard = early?.heard ?? this.heard(tracked);
    this.chain = this.chain.then(async () => {
      const result = await heard;
      if ('untranscribed' in result) return this.options.final({ speaker, text: '', timestamp, ...result });
      this.options.lag?.('final', (this.clock() - result.engineMs - utterance.speechToMs) / 1000);
      if (!result.text) return;
      // A final never contradicts what a partial committed without a partial saying so first.
      if (!tracked.agreement.agreesWith(result.text)) {
        this.options.partial({ captionId: tracked.id, speaker, text: result.text, stableText: result.text, timestamp });
      }
      await this.options.final({ speaker, text: result.text, timestamp });
    });
  }

  /** The engine's words for the utterance's speech so far (and TAIL_MS after it); `dropped` aborts it, unreported. */
  private async heard(tracked: Tracked, dropped?: AbortSignal): Promise<Heard> {
    const { utterance } = tracked;
    const until = iso(utterance.speechToMs);
    if (!this.affords(utterance)) return { untranscribed: { reason: 'budget_exhausted', until } };
    // Without the pause that ended it: engines make words of silence (Whisper too), and it is billed.
    const speechSamples = Math.ceil(((utterance.speechToMs + TAIL_MS - utterance.startMs) * PCM_SAMPLE_RATE) / 1000);
    const pcm = utterance.samples().subarray(0, speechSamples);
    this.spend(pcm);
    try {
      const signal = dropped ? AbortSignal.any([this.aborts.signal, dropped]) : this.aborts.signal;
      const { text, engineMs } = await this.options.engine.transcribe(
        { pcm, sampleRate: PCM_SAMPLE_RATE },
        { language: this.options.language, priority: 'final', signal },
      );
      if (this.engineDown) {
        this.engineDown = false;
        this.options.trouble('transcription_unavailable', false, '');
      }
      return { text: text.trim(), engineMs };
    } catch (err) {
      if (dropped?.aborted) return { untranscribed: { reason: 'engine_unavailable', until } }; // never used
      if (!this.engineDown) {
        this.engineDown = true;
        this.options.trouble('transcription_unavailable', true, err instanceof Error ? err.message : String(err));
      }
      return { untranscribed: { reason: 'engine_unavailable', until } };
    }
  }

  /** Whether the budget still has room for this utterance; the first time it has not, a warning. */
  private affords(utterance: Utterance): boolean {
    const seconds = (utterance.endMs - utterance.startMs) / 1000;
    if (this.spentSeconds + seconds <= this.options.budgetSeconds) return true;
    if (!this.budgetSpent) {
      this.budgetSpent = true;
      const detail = `${Math.round(this.spentSeconds)} of ${this.options.budgetSeconds} audio seconds sent`;
      this.options.trouble('transcription_budget_exhausted', true, detail);
    }
    return false;
  }

  private spend(pcm: Int16Array): void {
    this.spentSeconds += pcm.length / PCM_SAMPLE_RATE;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** An early final no longer wanted is aborted (its audio stays counted: it may have been sent). */
function dropEarly(tracked: Tracked): void {
  tracked.early?.abort.abort();
  tracked.early = undefined;
}
