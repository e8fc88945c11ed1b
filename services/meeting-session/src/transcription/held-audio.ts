/**
 * What audio transcription holds in this process, in bytes and items, and the audio it dropped to
 * keep that bounded: tallies the engine and the transcribers move as they take and let go, read by
 * the metrics (transcription-metrics.ts). Memory is the process's, so the tallies are too: one
 * for the process, holding numbers only (no reference to an engine or a meeting to outlive it).
 */

/**
 * waiting: finals waiting for an engine slot (their PCM); sending: requests being sent or retried
 * (their PCM and WAV, partials included); held_back: ended utterances kept in `auto` in case the
 * captions missed them; unemitted: finals not yet emitted (items only: their audio, while they
 * have any, is waiting or sending).
 */
export type HeldQueue = 'waiting' | 'sending' | 'held_back' | 'unemitted';

/**
 * meeting_queue_full / worker_queue_full: the engine already held the meeting's (or every
 * meeting's) bound of audio (STT_MEETING_MAX_QUEUED_SECONDS, STT_MAX_QUEUED_SECONDS);
 * backlog_full: so many of the meeting's finals were not yet emitted (the transcript is not taking them).
 */
export type DropReason = 'meeting_queue_full' | 'worker_queue_full' | 'backlog_full';

export const HELD_QUEUES: readonly HeldQueue[] = ['waiting', 'sending', 'held_back', 'unemitted'];

class HeldAudio {
  private readonly held = new Map<HeldQueue, { bytes: number; items: number }>(
    HELD_QUEUES.map((queue) => [queue, { bytes: 0, items: 0 }]),
  );
  private readonly droppedSeconds = new Map<DropReason, number>();

  /** `items` more (or fewer) in `queue`, holding `bytes` more (or fewer). */
  change(queue: HeldQueue, bytes: number, items: number): void {
    const tally = this.held.get(queue)!;
    tally.bytes += bytes;
    tally.items += items;
  }

  /** Takes `bytes` in one item of `queue` until the returned function is called (once counts). */
  hold(queue: HeldQueue, bytes: number): () => void {
    this.change(queue, bytes, 1);
    let held = true;
    return () => {
      if (held) this.change(queue, -bytes, -1);
      held = false;
    };
  }

  dropped(reason: DropReason, seconds: number): void {
    this.droppedSeconds.set(reason, (this.droppedSeconds.get(reason) ?? 0) + seconds);
  }

  of(queue: HeldQueue): { bytes: number; items: number } {
    return { ...this.held.get(queue)! };
  }

  /** Seconds dropped since the process started, by reason. */
  drops(): Array<[DropReason, number]> {
    return [...this.droppedSeconds];
  }
}

export const heldAudio = new HeldAudio();
