/** What one phase of the audio-transcription bench gathers (audio-transcription.bench.ts fills it). */
import type { TranscriptionRequestLog } from '../../support/speech-engine/index.js';
import type { AudioClock } from './audio-clock.js';
import type { MeetingsPhase } from './meeting-phases.js';

export type Mode = 'captions' | 'audio';

/** An audio-sourced event as it arrived (`at`: epoch ms at the receiver). */
export interface Heard {
  at: number;
  text: string;
  speaker: string;
  /** Its utterance's start as the worker heard it (epoch ms). */
  startedAt: number;
  captionId: string;
  untranscribed: boolean;
}

/** An utterance the bot heard, from the simulator's truth. */
export interface Said {
  meetingId: string;
  speaker: string;
  words: string[];
  soundStart: number;
  soundEnd: number;
  /** The page reported no play: the scheduled time is used. */
  unplayed: boolean;
  final?: Heard;
  partials?: Heard[];
}

export interface Phase extends MeetingsPhase<Mode> {
  /** Events whose `source` is not the phase's. */
  wrongSource: number;
  partials: Map<string, Heard[]>;
  finals: Map<string, Heard[]>;
  /** PCM chunks: lag behind rendering, and per meeting and track the audio carried over wall time. */
  pcmLagMs: number[];
  pcmClock: Map<string, AudioClock>;
  /** Per meeting, silences of SILENCE_MS or more between speech on one track (epoch ms, the chunks' timeline). */
  silences: Map<string, Array<{ from: number; to: number }>>;
  /** The engine's log from the first word of the phase to its end. */
  requests: TranscriptionRequestLog[];
  utterances: Said[];
  /** Heard by nobody: said while the bot was not in the call. */
  unheard: number;
  /** CPU of the engine's decoding over the window (this process's reaped children). */
  cpuEngineS: number;
  /** The stack's /metrics at the window's start and end. */
  metrics: [string, string];
}
