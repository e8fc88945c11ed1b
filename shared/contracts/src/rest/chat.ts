/**
 * The meeting's chat (issue #51): what people and the bot wrote in the platform's chat panel, read
 * by the bot, and what an API caller asks the bot to post there. Messages are kept beside a
 * meeting's transcript segments in transcript-store.
 */
import { z } from 'zod';
import { isoTimestamp } from '../events.js';

/** The longest chat text the bot posts: every platform takes it (Meet 516, Zoom 1024, Teams more). */
export const CHAT_MAX_CHARS = 500;

/** A chat text as asked for: trimmed, 1 to 500 characters; `field` names it in the 400. */
export const chatText = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(CHAT_MAX_CHARS, `${field} must be at most ${CHAT_MAX_CHARS} characters`);

/** One message of the meeting's chat, as the `chat_message` event and the transcript's `chat` carry it. */
export const chatMessage = z.object({
  /** The name the platform shows for who wrote it (the bot's own display name for its messages). */
  sender: z.string(),
  text: z.string(),
  /** When the bot saw it (ISO 8601 UTC with milliseconds). */
  timestamp: isoTimestamp,
  /** The bot's own message (posted through POST .../chat or the announcement). */
  fromBot: z.boolean(),
});
export type ChatMessage = z.infer<typeof chatMessage>;

/** POST /api/v1/meetings/{meetingId}/chat: `text` posted to the meeting's chat as the bot. */
export const sendChatRequest = z.strictObject({
  meetingId: z
    .string({ error: 'meetingId is required and must be a string' })
    .min(1, 'meetingId is required')
    .describe('The meeting id returned by start_meeting.'),
  text: chatText('text').describe(
    `What the bot writes in the meeting's chat, 1 to ${CHAT_MAX_CHARS} characters (trimmed). Everyone in the meeting sees it.`,
  ),
});
export const sendChatResponse = z.object({
  meetingId: z.string(),
  /** Posted in order after the messages asked before it; a chat_message (fromBot) or a chat_failed warning follows. */
  status: z.literal('queued'),
});

/** svc.transcripts.chat-append: one chat message of a meeting, idempotent by (meetingId, index). */
export const chatAppend = z.object({
  meetingId: z.string(),
  index: z.number().int().min(0),
  message: chatMessage,
});
export const chatAppendReply = z.object({ stored: z.boolean() });
/** svc.transcripts.chat: a meeting's chat messages in order (at most a meeting's worth: MAX_CHAT_MESSAGES). */
export const chatRequest = z.object({ meetingId: z.string() });
export const chatReply = z.object({ messages: z.array(chatMessage) });
/**
 * The longest text and sender name kept of a message read (longer ones end in "…"): platforms take
 * far longer messages than the bot posts (Teams about 28,000 characters), and 5,000 of those would
 * make a meeting's chat larger than its transcript.
 */
export const CHAT_READ_MAX_CHARS = 10_000;
export const CHAT_SENDER_MAX_CHARS = 200;
/** The most chat messages a meeting keeps (the rest are still events, never stored). */
export const MAX_CHAT_MESSAGES = 5000;
