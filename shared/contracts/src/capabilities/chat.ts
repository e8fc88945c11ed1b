/**
 * The meeting's chat, written (issue #51): the bot posts a text in a live meeting's chat. Answered
 * by meeting-session's registry (owner check, live check) and carried to the meeting's actor,
 * which posts its messages one at a time, in the order asked.
 */
import { defineCapability } from '../capability.js';
import { sendChatRequest, sendChatResponse } from '../rest/chat.js';
import { BODY_TOO_LARGE, NOT_OWNED } from './meetings.js';

export const sendChatMessage = defineCapability({
  name: 'send_chat_message',
  bus: { service: 'meetings', verb: 'chat', scope: 'caller' },
  input: sendChatRequest,
  output: sendChatResponse,
  errors: { 404: NOT_OWNED, 409: 'Meeting is not live', 413: BODY_TOO_LARGE },
  rest: {
    method: 'post',
    path: '/meetings/:meetingId/chat',
    status: 202,
    tag: 'meetings',
    summary: "Post a message in a live meeting's chat as the bot",
    description: 'Queued: a chat_message event (fromBot) or a chat_failed warning follows',
  },
  tool: {
    title: "Write in a meeting's chat",
    description:
      'Posts a text (1 to 500 characters) in the chat of a live meeting this API key started, as the bot: everyone in the meeting sees it. ' +
      "Messages are posted in the order asked; the message then shows in get_transcript's chat (fromBot true), or a chat_failed warning says why it could not be sent.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    text: (b) => `Message queued for meeting ${b.meetingId}'s chat.`,
  },
});

export const CHAT_CAPABILITIES = [sendChatMessage] as const;
