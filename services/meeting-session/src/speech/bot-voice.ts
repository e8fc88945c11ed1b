/** What the meeting's speech (meeting-speech.ts) needs of a bot in the call: a voice. */
export type SpeechEnd = 'finished' | 'interrupted';

export interface BotVoice {
  /**
   * Turns the microphone on, plays `audio` (a WAV, Ogg or MP3 file) into the call, and turns the
   * microphone off after: `started` is called as the sound starts. Rejects with why, the
   * microphone off again as far as the page lets it.
   */
  say(audio: Uint8Array, started: (durationMs: number) => void): Promise<SpeechEnd>;
  /** Cuts what is being said (say() then resolves 'interrupted'). */
  interrupt(): Promise<void>;
}
