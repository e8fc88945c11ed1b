/**
 * What the meeting actor holds of transcription from audio: the source choice, who speaks (the
 * speaker learner, fed the tiles' looks and the tracks' voice), and the audio transcriber, behind
 * the few calls the actor makes. The actor asks it which caption
 * events still count (`captionCounts`) and hears back partials, finals, troubles and switches.
 */
import type { MeetingWarning, TranscriptionMode, TranscriptSource } from '@notetaker/contracts';
import type { PcmMessage } from '../recording/page-capture.js';
import { AudioTranscriber, type AudioTranscriberOptions, type SpeechToText } from './audio-transcriber.js';
import { SourceChoice, type SourceSwitch } from './source-choice.js';
import { SpeakerLearner, type TileLook } from './speaker-learner.js';
import { UNKNOWN_SPEAKER } from './speaker-timeline.js';

export interface MeetingTranscriptionOptions extends Pick<
  AudioTranscriberOptions,
  'partial' | 'final' | 'trouble' | 'lag' | 'language' | 'idPrefix'
> {
  mode: Exclude<TranscriptionMode, 'captions'>;
  engine: SpeechToText;
  budgetSeconds: number;
  switched(change: SourceSwitch): void;
  /** A final from audio whose speaker no tile showed (metrics). */
  unknownSpeaker?(): void;
}

const CHECK_EVERY_MS = 500;

export class MeetingTranscription {
  private readonly speakers = new SpeakerLearner();
  /** Finals from audio said by UNKNOWN_SPEAKER: no tile changed while they were said. */
  unknownSpeakers = 0;
  private choice: SourceChoice | null = null;
  private transcriber: AudioTranscriber | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Caption turns by id: when each was first seen (a seam leaves out those the audio covered). */
  private readonly turns = new Map<string, boolean>();
  private readonly pending: Array<() => void> = [];

  constructor(private readonly options: MeetingTranscriptionOptions) {}

  /** What the words come from now; null before the call. */
  get source(): TranscriptSource | null {
    return this.choice?.source ?? null;
  }

  /** In the call: the choice starts, the audio is listened to. */
  admitted(now: number): void {
    if (this.choice) return;
    const choice = new SourceChoice(this.options.mode, now);
    this.choice = choice;
    this.transcriber = new AudioTranscriber({
      ...this.options,
      final: (final) => {
        if (final.speaker === UNKNOWN_SPEAKER) {
          this.unknownSpeakers++;
          this.options.unknownSpeaker?.();
        }
        return this.options.final(final);
      },
      speakers: this.speakers,
      source: () => choice.source,
      holdBack: this.options.mode === 'auto',
    });
    for (const replay of this.pending.splice(0)) replay();
    this.timer = setInterval(() => this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  pcm(chunk: PcmMessage): void {
    this.transcriber?.push(chunk);
  }

  /** The tiles' looks from `at` on (the bot's own left out). */
  looks(tiles: TileLook[], at: number): void {
    this.speakers.looks(tiles, at);
  }

  /** The captions named `speaker` at `at`: whose track carries voice then. */
  captioned(speaker: string, at: number): void {
    if (speaker) this.speakers.captioned(speaker, at);
  }

  captionsOn(on: boolean, at: number): void {
    if (this.choice) this.choice.captionsOn(on, at);
    else this.pending.push(() => this.choice?.captionsOn(on, at));
  }

  warning(warning: MeetingWarning, raised: boolean): void {
    if (this.choice) this.choice.warning(warning, raised);
    else this.pending.push(() => this.choice?.warning(warning, raised));
  }

  /**
   * Whether a caption event still counts: captions are the source, and its turn did not begin
   * while the audio was still transcribing (then the audio has its words).
   */
  captionCounts(turn: { captionId?: string; startedAt: number }, at: number): boolean {
    if (!this.choice || this.choice.source !== 'captions') return false;
    const key = turn.captionId;
    const known = key === undefined ? undefined : this.turns.get(key);
    const counts = known ?? !this.transcriber?.coversCaptionFrom(turn.startedAt);
    if (key !== undefined) this.turns.set(key, counts);
    if (counts) this.choice.captionRead(at);
    return counts;
  }

  async finish(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.transcriber?.finish();
  }

  private check(): void {
    const change = this.choice?.check(Date.now());
    if (!change) return;
    this.transcriber?.switched(change);
    this.options.switched(change);
  }
}
