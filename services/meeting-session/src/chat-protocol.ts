/**
 * The meeting chat between meeting-session's parts (issue #51): the registry hands a checked
 * send_chat_message to the meeting's one actor, which queues it for its bot.
 */
import { actorMeeting, chatText } from '@notetaker/contracts';
import { z } from 'zod';

/** registry -> the one actor of a meeting: post this text in the meeting's chat. */
export const actorChatSubject = (meetingId: string) => actorMeeting(meetingId, 'chat');

export const actorChatRequest = z.object({ text: chatText('text') });
/** `queued`: the actor took it; `not_live`: the bot is not in the call (any more). */
export const actorChatReply = z.object({ status: z.enum(['queued', 'not_live']) });
