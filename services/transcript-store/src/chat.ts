/**
 * A meeting's chat messages (issue #51), one store document per (meetingId, index) like the
 * segments: the actor appends them in the order the bot saw them, a retried append stores the
 * message once. Read whole: a meeting's chat is small beside its transcript (MAX_CHAT_MESSAGES).
 */
import { MAX_CHAT_MESSAGES, ServiceError, type ChatMessage } from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';

export interface StoredChatMessage extends ChatMessage {
  [key: string]: unknown;
  _id?: string;
  meetingId: string;
  index: number;
}

export class ChatMessages {
  readonly collection: Collection<StoredChatMessage>;

  constructor(store: Store) {
    this.collection = store.collection<StoredChatMessage>('chat');
  }

  async init(): Promise<void> {
    await this.collection.createIndex({ meetingId: 1, index: 1 });
  }

  /** True when stored now; false when this (meetingId, index) was stored before, or the meeting's chat is full. */
  async append(meetingId: string, index: number, message: ChatMessage): Promise<boolean> {
    if (index >= MAX_CHAT_MESSAGES) return false;
    try {
      await this.collection.insertOne({
        _id: `${meetingId}:${index}`,
        meetingId,
        index,
        sender: message.sender,
        text: message.text,
        timestamp: new Date(message.timestamp).toISOString(),
        fromBot: message.fromBot,
      });
      return true;
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'duplicate_key') return false;
      throw err;
    }
  }

  /** Every message of the meeting, in order, with its index. */
  stored(meetingId: string): Promise<StoredChatMessage[]> {
    return this.collection.find({ meetingId }, { sort: { index: 1 }, limit: MAX_CHAT_MESSAGES });
  }

  /** Every message of the meeting, in order, as the API answers it. */
  async list(meetingId: string): Promise<ChatMessage[]> {
    return (await this.stored(meetingId)).map(({ sender, text, timestamp, fromBot }) => ({
      sender,
      text,
      timestamp,
      fromBot,
    }));
  }
}
