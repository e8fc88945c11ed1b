/**
 * How fast a page delivered audio against the wall clock, per meeting or per track: the audio the
 * deliveries after the first carried over the wall time between the first and the last (the
 * page's own timestamps play no part).
 */
export interface AudioClock {
  /** Epoch ms of the first and the last delivery. */
  firstAt: number;
  lastAt: number;
  /** Audio (ms) the deliveries after the first carried. */
  audioMs: number;
}

/** A delivery of `audioMs` of audio arrived at `now` (epoch ms); the first one only starts the clock. */
export function clockAudio(clocks: Map<string, AudioClock>, key: string, now: number, audioMs: number): void {
  const clock = clocks.get(key);
  if (clock) Object.assign(clock, { lastAt: now, audioMs: clock.audioMs + audioMs });
  else clocks.set(key, { firstAt: now, lastAt: now, audioMs: 0 });
}

/**
 * Each clock that ran over 5 s, as audio over wall time: 1 is real time; below 1 the page's audio
 * graph was starved of CPU and captured only that share of the meeting.
 */
export const clockRates = (clocks: Map<string, AudioClock>) =>
  [...clocks.values()].filter((c) => c.lastAt - c.firstAt > 5_000).map((c) => c.audioMs / (c.lastAt - c.firstAt));
