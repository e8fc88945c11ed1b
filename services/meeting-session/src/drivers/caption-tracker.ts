/** What the drivers need from a platform's caption tracker. */

export interface CaptionTracker<Item> {
  /** A snapshot of the captions on screen, in reading order. */
  update(items: Item[], now: number): void;
  /** Finalises turns that have not changed for the platform's idle time. */
  tick(now: number): void;
  /** Finalises every turn in progress (leaving, or the meeting is over). */
  flush(): void;
}
