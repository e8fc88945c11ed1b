/**
 * A meeting's chat in its actor (issue #51): the messages the driver reads become `chat_message`
 * events and are kept beside the transcript (transcript-store's chat, in the order seen), and
 * the texts asked for (send_chat_message, the announcement) go to the bot one at a time, in the
 * order asked. A text the bot could not post is a `chat_failed` warning with the reason.
 */
import { CHAT_READ_MAX_CHARS, CHAT_SENDER_MAX_CHARS, routes, type ChatMessage } from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { MeetingDriver } from '../drivers/driver.js';

export interface MeetingChatDeps {
  bus: Bus;
  /** The meeting's own logger (it names the meeting). */
  logger: Logger;
  meetingId: string;
  /** The chat_message event. */
  emit(message: ChatMessage): void;
  /** A meeting_status warning `chat_failed`, with why. */
  failed(failure: string): void;
  /** The bot now, or null (not started, or gone). */
  driver(): MeetingDriver | null;
  /** A message is kept: the document has something new to write. */
  stored(): void;
}

const STORE_ATTEMPTS = 3;

export class MeetingChat {
  private index = 0;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The messages read, kept and said in order. */
  private storing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: MeetingChatDeps) {}

  /**
   * A message the bot read: kept, then said (a reader told of it finds it in the transcript), one
   * after the other so they keep the chat's order; one storage does not take is said all the same.
   */
  received(read: ChatMessage): void {
    if (this.stopped) return;
    const message = {
      ...read,
      sender: cut(read.sender, CHAT_SENDER_MAX_CHARS),
      text: cut(read.text, CHAT_READ_MAX_CHARS),
    };
    const index = this.index++;
    this.storing = this.storing.then(async () => {
      await this.store(index, message);
      this.deps.emit(message);
    });
  }

  /** Resolves once every message read so far is kept and said (the final document holds them all). */
  drained(): Promise<void> {
    return this.storing;
  }

  /** Queues `text` after the texts asked before it. */
  send(text: string): void {
    this.queue = this.queue.then(() => this.post(text));
  }

  stop(): void {
    this.stopped = true;
  }

  private async post(text: string): Promise<void> {
    if (this.stopped) return;
    const driver = this.deps.driver();
    if (!driver?.sendChat) return this.deps.failed('the bot is not in the call');
    try {
      await driver.sendChat(text);
    } catch (err) {
      if (this.stopped) return;
      const failure = err instanceof Error ? err.message : String(err);
      this.deps.logger.warn({ failure }, 'a chat message could not be sent');
      this.deps.failed(failure);
    }
  }

  private async store(index: number, message: ChatMessage): Promise<void> {
    for (let attempt = 1; attempt <= STORE_ATTEMPTS; attempt++) {
      try {
        await call(this.deps.bus, routes.transcripts.chatAppend, { meetingId: this.deps.meetingId, index, message });
        this.deps.stored();
        return;
      } catch (err) {
        if (attempt === STORE_ATTEMPTS) this.deps.logger.warn({ err, index }, 'a chat message could not be stored');
        else await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
