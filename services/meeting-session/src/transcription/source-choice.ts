/**
 * Where a meeting's words come from now. `captions` and `audio` never change; `auto` reads the
 * captions while they can be read and the audio while they cannot:
 * - unreadable: a caption warning that means the bot reads nothing (off for good, a blind reader,
 *   the language asked for not captioned), or captions off for OFF_GRACE_MS in the call (the host
 *   turned them off: switched within seconds, not after the warning's longer wait);
 * - readable again: captions on and none of those warnings.
 *
 * The seams, so that no word is lost or said twice:
 * - to audio: captions stopped before anyone noticed, so the audio takes over from the last
 *   caption text read (`since`): the utterances heard since then, held back for this, are
 *   transcribed too;
 * - to captions: the utterance under way is finished from audio, and a caption turn that began
 *   before the audio's last utterance ended is left out (the audio has those words).
 */
import type { MeetingWarning, TranscriptionMode, TranscriptSource } from '@notetaker/contracts';

export const OFF_GRACE_MS = 3_000;
/**
 * Just admitted, the bot is still turning captions on: they are missed only after this and
 * OFF_GRACE_MS (5 s in all). A platform slower than that switches to audio and back, losing nothing.
 */
const STARTUP_GRACE_MS = 2_000;

/** Warnings after which the captions say nothing the transcript can use. */
const UNREADABLE: ReadonlySet<MeetingWarning> = new Set([
  'captions_unreadable',
  'captions_unavailable',
  'caption_language_unavailable',
]);

export interface SourceSwitch {
  source: TranscriptSource;
  /** From when the new source covers the meeting (to audio: the last caption text read). */
  since: number;
  why: string;
}

export class SourceChoice {
  private current: TranscriptSource;
  private readonly warnings = new Set<MeetingWarning>();
  private captionsOnNow = false;
  private offSince: number | null = null;
  private lastCaptionAt = 0;

  constructor(
    private readonly mode: TranscriptionMode,
    admittedAt: number,
  ) {
    this.current = mode === 'audio' ? 'audio' : 'captions';
    this.offSince = admittedAt + STARTUP_GRACE_MS;
    this.lastCaptionAt = admittedAt;
  }

  get source(): TranscriptSource {
    return this.current;
  }

  captionsOn(on: boolean, at: number): void {
    this.captionsOnNow = on;
    this.offSince = on ? null : (this.offSince ?? at);
  }

  warning(warning: MeetingWarning, raised: boolean): void {
    if (!UNREADABLE.has(warning)) return;
    if (raised) this.warnings.add(warning);
    else this.warnings.delete(warning);
  }

  /** Caption text was read at `at`. */
  captionRead(at: number): void {
    this.lastCaptionAt = Math.max(this.lastCaptionAt, at);
  }

  /** Looks again at `now`; the switch to make, if any. */
  check(now: number): SourceSwitch | null {
    if (this.mode !== 'auto') return null;
    const offTooLong = this.offSince !== null && now - this.offSince >= OFF_GRACE_MS;
    const readable = this.warnings.size === 0 && this.captionsOnNow;
    if (this.current === 'captions' && (this.warnings.size > 0 || offTooLong)) {
      this.current = 'audio';
      const why = this.warnings.size > 0 ? [...this.warnings].join(', ') : `captions off for ${OFF_GRACE_MS / 1000} s`;
      return { source: 'audio', since: this.lastCaptionAt, why };
    }
    if (this.current === 'audio' && readable) {
      this.current = 'captions';
      return { source: 'captions', since: now, why: 'captions can be read again' };
    }
    return null;
  }
}
