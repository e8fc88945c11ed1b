/**
 * A scripted meeting platform for tests of our services: a DriverFactory whose drivers do what the
 * test tells them (lobby, admit, captions, participants, removal). It stands in for Google Meet or
 * Teams only; every service of ours runs for real around it.
 */
import type { DriverEnd, DriverFailure } from '@notetaker/contracts';
import type {
  CaptionUpdate,
  DriverFactory,
  DriverListener,
  FinalSegment,
  JoinTarget,
  MeetingDriver,
} from '../../services/meeting-session/src/drivers/driver.js';
import { SILENT_PACKET } from '../../services/meeting-session/src/recording/ogg.js';
import type { AudioBatch } from '../../services/meeting-session/src/recording/page-capture.js';

export interface ScriptedMeeting {
  target: JoinTarget;
  /** True once the actor called leave(). */
  left: boolean;
  lobby(): void;
  admit(): void;
  caption(update: Omit<CaptionUpdate, 'timestamp'> & { timestamp?: string }): void;
  segment(segment: Omit<FinalSegment, 'timestamp'> & { timestamp?: string }): void;
  participants(names: string[]): void;
  end(reason: DriverEnd): void;
  fail(reason: DriverFailure, detail?: string): void;
  /** The last `ms` of the meeting's audio, as the page hands it over: real Opus frames of silence. */
  audio(ms?: number): void;
  /** Someone writes in the meeting's chat. */
  chat(sender: string, text: string): void;
  /** What the bot posted in the chat (sendChat), in order; each also comes back as its own message. */
  posted: string[];
  /** The audio files the bot played into the call (its voice), in order. */
  said: Uint8Array[];
  /** While set, the call refuses the bot's voice with this reason (as a microphone button that never turns on). */
  refuseSpeech: string | null;
}

export interface ScriptedDriverFactory extends DriverFactory {
  /** The driver of a meeting, once the actor created and started it. */
  meeting(meetingId: string): Promise<ScriptedMeeting>;
  started: ScriptedMeeting[];
}

export interface ScriptOptions {
  /** Go through lobby and admission on start (default true). */
  autoAdmit?: boolean;
  /** Make start() itself fail, as a browser that cannot launch would. */
  failOnStart?: DriverFailure;
  /** Runs inside leave(), before the bot is gone: a platform finalising the turn in progress. */
  beforeLeave?: (meeting: ScriptedMeeting) => void | Promise<void>;
  /** sendChat fails with this reason (a platform whose chat cannot be written). */
  chatRefused?: string;
}

/** A batch as page-capture.ts sends it: `ms` of 20 ms Opus frames that ended just now. */
function silence(ms: number): AudioBatch {
  const frames = Math.max(1, Math.round(ms / 20));
  return {
    epochMs: Date.now() - frames * 20,
    timestampsUs: Array.from({ length: frames }, (_, i) => i * 20_000),
    data: Buffer.concat(Array.from({ length: frames }, () => SILENT_PACKET)).toString('base64'),
    sizes: Array.from({ length: frames }, () => SILENT_PACKET.length),
    durationsUs: Array.from({ length: frames }, () => 20_000),
    tracks: 1,
  };
}

export function scriptedDriverFactory(options: ScriptOptions = {}): ScriptedDriverFactory {
  const started: ScriptedMeeting[] = [];
  const waiting = new Map<string, Array<(m: ScriptedMeeting) => void>>();

  const factory: ScriptedDriverFactory = {
    started,
    create(target: JoinTarget): MeetingDriver {
      let listener: DriverListener | null = null;
      const on = (fn: (l: DriverListener) => void) => {
        if (listener && !meeting.left) fn(listener);
      };
      const now = () => new Date().toISOString();
      const meeting: ScriptedMeeting = {
        target,
        left: false,
        lobby: () => on((l) => l.lobby()),
        admit: () => on((l) => l.admitted()),
        caption: (u) => on((l) => l.caption({ timestamp: now(), ...u })),
        segment: (s) => on((l) => l.segment({ timestamp: now(), ...s })),
        participants: (names) => on((l) => l.participants(names)),
        end: (reason) => on((l) => l.ended(reason)),
        fail: (reason, detail) => on((l) => l.failed(reason, detail)),
        audio: (ms = 1000) => on((l) => l.audio(silence(ms))),
        chat: (sender, text) => on((l) => l.chat?.({ sender, text, timestamp: now(), fromBot: false })),
        posted: [],
        said: [],
        refuseSpeech: null,
      };
      // A voice that "plays" each file for 50 ms: the actor's speech queue runs against it.
      const voice = {
        async say(audio: Uint8Array, started: (durationMs: number) => void) {
          if (meeting.refuseSpeech) throw new Error(meeting.refuseSpeech);
          meeting.said.push(audio);
          started(50);
          await new Promise((resolve) => setTimeout(resolve, 50));
          return 'finished' as const;
        },
        async interrupt() {},
      };
      return {
        async start(l) {
          listener = l;
          if (options.failOnStart) {
            queueMicrotask(() => l.failed(options.failOnStart!, 'scripted'));
            return;
          }
          started.push(meeting);
          for (const resolve of waiting.get(target.meetingId) ?? []) resolve(meeting);
          waiting.delete(target.meetingId);
          if (options.autoAdmit ?? true) {
            queueMicrotask(() => {
              meeting.lobby();
              meeting.admit();
            });
          }
        },
        async leave() {
          await options.beforeLeave?.(meeting);
          meeting.left = true;
        },
        async sendChat(text) {
          if (options.chatRefused) throw new Error(options.chatRefused);
          meeting.posted.push(text);
          on((l) => l.chat?.({ sender: target.displayName, text, timestamp: now(), fromBot: true }));
        },
        voice: () => (listener && !meeting.left ? voice : null),
      };
    },
    meeting(meetingId) {
      const found = started.find((m) => m.target.meetingId === meetingId);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiting.set(meetingId, [...(waiting.get(meetingId) ?? []), resolve]));
    },
    async close() {},
  };
  return factory;
}
