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
 *
 * Its memory is bounded whatever the engine does: an utterance's PCM is let go once its final is
 * answered (or it is not to be transcribed); the engine refuses a final past its queue's bounds
 * (speech-engine.ts), and no more than MAX_UNEMITTED finals wait to be emitted (a transcript that
 * does not take them: later ones are dropped, in one marker). Dropped speech is marked as an
 * engine's failure is, and said at once: the warning `transcription_unavailable` for the burst
 * (raised at its first drop, one log line; cleared once a final is answered with no drop for
 * DROP_QUIET_MS), and its seconds on a metric (held-audio.ts).
 *
 * One utterance, one final: it is handed to the engine once (its id, with how much of it is sent,
 * is the request's: the engine's retries carry it), and emitted once.
 */
import type { TranscriptSource, Untranscribed } from '@notetaker/contracts';
import type { PcmMessage } from '../recording/page-capture.js';
import { PCM_SAMPLE_RATE } from '../recording/page-capture.js';
import { LocalAgreement } from './local-agreement.js';
import { heldAudio, type DropReason } from './held-audio.js';
import { SpeechEngineError, SpeechEngineQueueFull } from './speech-engine.js';
import type { SourceSwitch } from './source-choice.js';
import type { SpeakerLearner } from './speaker-learner.js';
import { TAIL_MS, VoiceActivity, type Utterance } from './voice-activity.js';

/** What the transcriber needs of a speech engine (speech-engine.ts). */
export interface SpeechToText {
  transcribe(
    audio: { pcm: Int16Array; sampleRate: number },
    options: {
      language?: string | null;
      priority: 'final' | 'partial';
      signal?: AbortSignal;
      /** The request's identity: the same on each of its attempts. */
      id?: string;
      /** Whose share of the engine's queue a final takes: the meeting's. */
      meeting?: string;
    },
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
  /** Finals waiting to be emitted at most (default MAX_UNEMITTED). */
  maxUnemitted?: number;
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
/** Finals waiting to be emitted at most: past it the speech is dropped (one marker for the run of them). */
export const MAX_UNEMITTED = 200;
/** A burst of drops is over once this long passed without one and a final was answered since. */
export const DROP_QUIET_MS = 10_000;
/** A track heard from no more for this long, with nothing under way, is forgotten. */
const TRACK_FORGET_MS = 60_000;

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
  /** Its final is on its way to be emitted: never a second one. */
  finalized: boolean;
}

/** Speech not sent to keep memory bounded: reported when the request is the one used (an early final may not be). */
interface Drop {
  reason: DropReason;
  seconds: number;
  detail: string;
}

type Heard = { text: string; engineMs: number } | { untranscribed: Untranscribed; drop?: Drop };

interface EarlyFinal {
  speechToMs: number;
  heard: Promise<Heard>;
  abort: AbortController;
}

type Marker = HeardFinal & { untranscribed: Untranscribed };

export class AudioTranscriber {
  private readonly tracks = new Map<string, { activity: VoiceActivity; heardAt: number }>();
  private readonly open = new Map<Utterance, Tracked>();
  private held: Array<{ tracked: Tracked; letGo: () => void }> = [];
  private chain: Promise<void> = Promise.resolve();
  private readonly aborts = new AbortController();
  private spentSeconds = 0;
  private budgetSpent = false;
  /** `transcription_unavailable` stands: the engine fails (engineDown) or speech is being dropped. */
  private unavailable = false;
  private engineDown = false;
  /** The burst of drops under way: its last drop, and whether a final was answered since; null: none. */
  private dropping: { lastAt: number; answeredSince: boolean } | null = null;
  private unemitted = 0;
  /** The backlog's last marker of dropped speech, not yet emitted: the drops after it extend it. */
  private backlogMarker: Marker | null = null;
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
    const held = this.held;
    this.held = [];
    if (change.source === 'audio') for (const tracked of this.open.values()) tracked.audioOwned = true;
    for (const { tracked, letGo } of held) {
      letGo();
      const missed = change.source === 'audio' && tracked.utterance.endMs - change.since >= TAKE_OVER_MIN_MS;
      if (missed) this.transcribe(tracked);
      else tracked.utterance.release();
    }
  }

  /** The meeting is over for the bot: utterances under way end, finals get a last while to come. */
  async finish(): Promise<void> {
    clearInterval(this.timer);
    for (const track of this.tracks.values()) track.activity.close();
    this.letGoHeld(() => true);
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
      finalized: false,
    });
  }

  private paused(utterance: Utterance): void {
    const tracked = this.open.get(utterance);
    if (!tracked || !(tracked.audioOwned || this.options.source() === 'audio')) return;
    dropEarly(tracked);
    if (this.backlogFull) return; // its speech would be dropped: nothing sent for it
    const abort = new AbortController();
    tracked.early = { speechToMs: utterance.speechToMs, heard: this.heard(tracked, abort.signal), abort };
  }

  private ended(utterance: Utterance): void {
    const tracked = this.open.get(utterance);
    this.open.delete(utterance);
    if (!tracked) return utterance.release();
    if (tracked.audioOwned || this.options.source() === 'audio') return this.transcribe(tracked);
    dropEarly(tracked);
    if (!this.options.holdBack) return utterance.release();
    this.letGoHeld((held) => this.clock() - held.utterance.endMs >= HOLD_MS);
    this.held.push({ tracked, letGo: heldAudio.hold('held_back', utterance.bytes) });
  }

  /** Lets the held-back utterances `stale` says go, and their audio. */
  private letGoHeld(stale: (tracked: Tracked) => boolean): void {
    this.held = this.held.filter(({ tracked, letGo }) => {
      if (!stale(tracked)) return true;
      letGo();
      tracked.utterance.release();
      return false;
    });
  }

  private tick(): void {
    const now = this.clock();
    // A tick this late means this process was held up: chunks may be waiting, so no track counts as stopped.
    const punctual = now - this.lastTickAt < 3 * TICK_MS;
    this.lastTickAt = now;
    if (punctual) this.endStalled(now);
    this.sendPartials(now);
    this.letGoHeld((held) => now - held.utterance.endMs >= HOLD_MS);
    this.endDropBurst(now);
  }

  /** A track that stopped delivering with an utterance open: it ends with what it has; one long gone is forgotten. */
  private endStalled(now: number): void {
    for (const [id, { activity, heardAt }] of this.tracks) {
      if (activity.open && now - heardAt >= STALLED_MS) activity.close();
      else if (!activity.open && now - heardAt >= TRACK_FORGET_MS) this.tracks.delete(id);
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
          if (err instanceof SpeechEngineError && err.kind === 'busy') this.refund(pcm);
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

  /** Sends the whole utterance now (once); its final is emitted in its turn, and its audio let go once heard. */
  private transcribe(tracked: Tracked): void {
    if (tracked.finalized) return;
    tracked.finalized = true;
    const { utterance, agreement, id: captionId } = tracked;
    this.audioCoveredUntil = Math.max(this.audioCoveredUntil, utterance.endMs);
    // Who spoke is asked as late as it can be: a late indicator (speaker-learner.ts) shows the most by then.
    const speakerNow = () =>
      this.options.speakers.speakerOf(utterance.track, utterance.speechFromMs, utterance.speechToMs);
    const timestamp = iso(utterance.speechFromMs);
    const early = tracked.early?.speechToMs === utterance.speechToMs ? tracked.early : undefined;
    if (!early) dropEarly(tracked);
    if (this.backlogFull) {
      dropEarly(tracked);
      utterance.release();
      return this.dropForBacklog(speakerNow(), timestamp, utterance);
    }
    const heard = early?.heard ?? this.heard(tracked);
    void heard.then((result) => {
      utterance.release();
      if ('drop' in result && result.drop) this.dropped(result.drop);
    });
    const { speechToMs } = utterance;
    this.inTurn(async () => {
      const result = await heard;
      const speaker = speakerNow();
      if ('untranscribed' in result) {
        return this.options.final({ speaker, text: '', timestamp, untranscribed: result.untranscribed });
      }
      this.options.lag?.('final', (this.clock() - result.engineMs - speechToMs) / 1000);
      if (!result.text) return;
      // A final never contradicts what a partial committed without a partial saying so first.
      if (!agreement.agreesWith(result.text)) {
        this.options.partial({ captionId, speaker, text: result.text, stableText: result.text, timestamp });
      }
      await this.options.final({ speaker, text: result.text, timestamp });
    });
  }

  private get backlogFull(): boolean {
    return this.unemitted >= (this.options.maxUnemitted ?? MAX_UNEMITTED);
  }

  /** `emit` runs once every final before it was emitted; counted until then. */
  private inTurn(emit: () => Promise<void>): void {
    this.unemitted++;
    const done = heldAudio.hold('unemitted', 0);
    this.chain = this.chain.then(emit).finally(() => {
      this.unemitted--;
      done();
    });
  }

  /** Too many finals wait to be emitted: this speech is not sent, and joins the backlog's last marker. */
  private dropForBacklog(speaker: string, timestamp: string, utterance: Utterance): void {
    this.dropped({
      reason: 'backlog_full',
      seconds: (utterance.speechToMs - utterance.speechFromMs) / 1000,
      detail: `${this.unemitted} finals of the meeting wait to be stored: later speech is not sent`,
    });
    const until = iso(utterance.speechToMs);
    if (this.backlogMarker) {
      this.backlogMarker.untranscribed.until = until;
      return;
    }
    const marker: Marker = { speaker, text: '', timestamp, untranscribed: { reason: 'engine_unavailable', until } };
    this.backlogMarker = marker;
    this.inTurn(() => {
      if (this.backlogMarker === marker) this.backlogMarker = null;
      return this.options.final(marker);
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
        {
          language: this.options.language,
          priority: 'final',
          signal,
          // The utterance, and how much of it: an early final and the whole utterance are two requests.
          id: `${tracked.id}+${utterance.speechToMs - utterance.startMs}`,
          meeting: this.options.idPrefix,
        },
      );
      this.engineDown = false;
      if (this.dropping) this.dropping.answeredSince = true;
      this.troubleChanged('');
      this.endDropBurst(this.clock());
      return { text: text.trim(), engineMs };
    } catch (err) {
      const untranscribed: Untranscribed = { reason: 'engine_unavailable', until };
      if (dropped?.aborted) return { untranscribed }; // never used
      const detail = err instanceof Error ? err.message : String(err);
      if (err instanceof SpeechEngineQueueFull) {
        this.refund(pcm);
        const seconds = pcm.length / PCM_SAMPLE_RATE;
        return { untranscribed, drop: { reason: err.bound, seconds, detail: `${detail}: later speech is not sent` } };
      }
      this.engineDown = true;
      this.troubleChanged(detail);
      return { untranscribed };
    }
  }

  /** Speech dropped to keep memory bounded: counted, and said at the burst's first drop. */
  private dropped(drop: Drop): void {
    heldAudio.dropped(drop.reason, drop.seconds);
    this.dropping = { lastAt: this.clock(), answeredSince: false };
    this.troubleChanged(`${drop.detail} (marked untranscribed)`);
  }

  /** The burst is over once a final was answered and DROP_QUIET_MS passed without a drop. */
  private endDropBurst(now: number): void {
    if (!this.dropping?.answeredSince || now - this.dropping.lastAt < DROP_QUIET_MS) return;
    this.dropping = null;
    this.troubleChanged('');
  }

  /** Raises `transcription_unavailable` when the engine fails or speech is dropped, clears it when neither. */
  private troubleChanged(detail: string): void {
    const unavailable = this.engineDown || this.dropping !== null;
    if (unavailable === this.unavailable) return;
    this.unavailable = unavailable;
    this.options.trouble('transcription_unavailable', unavailable, unavailable ? detail : '');
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

  /** Nothing was sent of it. */
  private refund(pcm: Int16Array): void {
    this.spentSeconds -= pcm.length / PCM_SAMPLE_RATE;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** An early final no longer wanted is aborted (its audio stays counted: it may have been sent). */
function dropEarly(tracked: Tracked): void {
  tracked.early?.abort.abort();
  tracked.early = undefined;
}
