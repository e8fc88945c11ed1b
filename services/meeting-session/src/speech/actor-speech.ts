/**
 * A meeting actor's speech: the `speak` command on the actor's subject (from the registry, which
 * checked the owner and the input), the meeting's speech queue (meeting-speech.ts), and its events
 * on the meeting's stream: speech_started, speech_finished (`interrupted: true` when cut),
 * speech_failed with the reason; a text said becomes a segment by the bot's name (`source: bot`).
 */
import { actorMeeting, errors, type EventType, type TranscriptSegment } from '@notetaker/contracts';
import type { Bus, Subscription } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { BotVoice } from './bot-voice.js';
import { MeetingSpeech } from './meeting-speech.js';
import type { Synthesizer } from './text-to-speech.js';

export const speakSubject = (meetingId: string) => actorMeeting(meetingId, 'speak');

/** What the registry sends the actor: the checked request, audio still base64. */
export interface SpeakCommand {
  text?: string;
  audio?: string;
  voice?: string;
  interrupt?: boolean;
}

export interface ActorSpeechDeps {
  bus: Bus;
  logger: Logger;
  meetingId: string;
  displayName: string;
  synthesizer: Synthesizer | null;
  voice: () => BotVoice | null;
  isLive: () => boolean;
  emit: (type: EventType, payload: Record<string, unknown>) => void;
  /** Through the actor's mailbox, stored before it is published, as every segment. */
  segment: (segment: TranscriptSegment) => void;
}

export class ActorSpeech {
  readonly speech: MeetingSpeech;
  private sub: Subscription | null = null;

  constructor(private readonly deps: ActorSpeechDeps) {
    const { emit, logger } = deps;
    const said = (text: string | null) => (text === null ? {} : { text });
    this.speech = new MeetingSpeech(deps.synthesizer, deps.voice, {
      started: ({ text, at, durationMs }) =>
        emit('speech_started', { ...said(text), timestamp: at.toISOString(), durationMs }),
      finished: ({ text, end }) =>
        emit('speech_finished', { ...said(text), ...(end === 'interrupted' ? { interrupted: true } : {}) }),
      failed: ({ text, reason }) => {
        logger.warn({ reason }, 'the bot could not speak');
        emit('speech_failed', { ...said(text), reason });
      },
      said: (text, at) => deps.segment({ speaker: deps.displayName, text, timestamp: at.toISOString(), source: 'bot' }),
    });
  }

  /** Answers the actor's speak subject. */
  serve(): void {
    this.sub = this.deps.bus.serve(speakSubject(this.deps.meetingId), (data) => this.onSpeak(data as SpeakCommand));
  }

  /**
   * The platform's captions of the bot's own voice: its display name, or Meet's "You". Not a
   * participant's words: the bot's segment says them once, as they were meant.
   */
  isOwnCaption(speaker: string): boolean {
    return this.speech.hasSpoken && (speaker === this.deps.displayName || speaker === 'You');
  }

  close(): void {
    this.speech.close();
    void this.sub?.unsubscribe();
    this.sub = null;
  }

  private onSpeak(command: SpeakCommand): { meetingId: string; status: 'queued' } {
    if (!this.deps.isLive()) throw errors.conflict('The meeting is not live: the bot is not in the call');
    const audio = command.audio === undefined ? undefined : new Uint8Array(Buffer.from(command.audio, 'base64'));
    this.speech.enqueue({ text: command.text, audio, voice: command.voice }, command.interrupt === true);
    return { meetingId: this.deps.meetingId, status: 'queued' };
  }
}
