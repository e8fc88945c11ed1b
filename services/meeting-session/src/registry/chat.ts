/**
 * send_chat_message at the registry (issue #51): the caller's meeting (404 for another key's, as
 * for stop), live (409 otherwise), then the text is handed to the meeting's actor, which queues
 * it for its bot in the order asked.
 */
import { errors, ServiceError, type Caller } from '@notetaker/contracts';
import type { Bus } from '@notetaker/bus';
import { actorChatReply, actorChatSubject } from '../chat-protocol.js';
import type { Records } from './records.js';

const NOT_LIVE = 'Meeting is not live';

export async function sendChat(
  deps: { bus: Bus; records: Records },
  request: { caller: Caller; meetingId: string; text: string },
): Promise<{ meetingId: string; status: 'queued' }> {
  const { meetingId, text } = request;
  const doc = await deps.records.owned(request.caller, meetingId);
  if (doc.status !== 'live') throw errors.conflict(NOT_LIVE);
  let answer: unknown;
  try {
    answer = await deps.bus.request(actorChatSubject(meetingId), { text }, { timeoutMs: 5000 });
  } catch (err) {
    // Nobody hosts the actor any more: the meeting is on its way to an end.
    if (err instanceof ServiceError && err.code === 'no_responders') throw errors.conflict(NOT_LIVE);
    throw err;
  }
  if (actorChatReply.parse(answer).status !== 'queued') throw errors.conflict(NOT_LIVE);
  return { meetingId, status: 'queued' };
}
