/**
 * Keeps a driver's promises to its listener whatever happens underneath: at most one terminal
 * event (ended or failed), nothing at all once the driver is leaving or finished, and a listener
 * that throws never breaks the browser side.
 */
import type { ChatMessage, DriverEnd, DriverFailure } from '@notetaker/contracts';
import type { AudioBatch, PcmMessage, SkippedAudio } from '../recording/page-capture.js';
import type { TileLook } from './tile-readings.js';
import type {
  CaptionUpdate,
  CaptionWarningChange,
  DriverListener,
  FinalSegment,
  JoinProgress,
  PageEvidence,
} from './driver.js';

export class GuardedListener implements DriverListener {
  private silent = false;

  constructor(private readonly inner: DriverListener) {}

  /** From now on nothing reaches the listener. */
  silence(): void {
    this.silent = true;
  }

  lobby(): void {
    this.deliver((l) => l.lobby());
  }

  admitted(): void {
    this.deliver((l) => l.admitted());
  }

  caption(update: CaptionUpdate): void {
    this.deliver((l) => l.caption(update));
  }

  segment(segment: FinalSegment): void {
    this.deliver((l) => l.segment(segment));
  }

  participants(names: string[]): void {
    this.deliver((l) => l.participants(names));
  }

  warning(change: CaptionWarningChange): void {
    this.deliver((l) => l.warning(change));
  }

  signedIn(identity: string): void {
    this.deliver((l) => l.signedIn(identity));
  }

  audio(batch: AudioBatch): void {
    this.deliver((l) => l.audio(batch));
  }

  audioFailed(detail: string): void {
    this.deliver((l) => l.audioFailed(detail));
  }

  audioSkipped(skip: SkippedAudio): void {
    this.deliver((l) => l.audioSkipped(skip));
  }

  pcm(chunk: PcmMessage): void {
    this.deliver((l) => l.pcm(chunk));
  }

  pcmFailed(detail: string | null): void {
    this.deliver((l) => l.pcmFailed(detail));
  }

  looks(tiles: TileLook[], at: number): void {
    this.deliver((l) => l.looks(tiles, at));
  }

  captionsOn(on: boolean): void {
    this.deliver((l) => l.captionsOn(on));
  }

  joinProgress(progress: JoinProgress): void {
    this.deliver((l) => l.joinProgress?.(progress));
  }

  chat(message: ChatMessage): void {
    this.deliver((l) => l.chat?.(message));
  }

  ended(reason: DriverEnd): void {
    this.deliver((l) => l.ended(reason));
    this.silent = true;
  }

  failed(reason: DriverFailure, detail?: string, evidence?: PageEvidence): void {
    this.deliver((l) => l.failed(reason, detail, evidence));
    this.silent = true;
  }

  private deliver(call: (listener: DriverListener) => void): void {
    if (this.silent) return;
    try {
      call(this.inner);
    } catch {
      // The listener's own fault; the meeting in the browser carries on regardless.
    }
  }
}
