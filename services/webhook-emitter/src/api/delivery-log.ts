/**
 * svc.webhooks.deliveries: one meeting's delivery log for its owner. The gateway has already
 * asked meeting-session whether the caller owns the meeting; this checks again against the token
 * that registered the callback, so the log never leaks through another path. Unknown and foreign
 * meetings get the same 404.
 */
import {
  errors,
  type Caller,
  type ParsedRequestOf,
  type routes,
  type WebhookDeliveriesReply,
} from '@notetaker/contracts';
import { eventId, type CallbackDoc, type DeliveryStore, type EventRecord } from '../store/delivery-store.js';

function owns(caller: Caller, callback: CallbackDoc): boolean {
  if (caller.kind === 'token') return callback.tokenId === caller.tokenId;
  return callback.tokenId === null; // the UI sees only UI meetings (which send nothing)
}

export async function deliveryLog(
  request: ParsedRequestOf<typeof routes.webhooks.deliveries>,
  store: DeliveryStore,
): Promise<WebhookDeliveriesReply> {
  const callback = await store.callbacks.findOne({ _id: request.meetingId });
  if (!callback || !owns(request.caller, callback)) throw errors.notFound();
  const records = (await store.readMeeting(request.meetingId)).filter((r) => r.sequence > request.afterSequence);
  const page = records.slice(0, request.limit);
  return {
    meetingId: request.meetingId,
    callbackUrl: callback.callbackUrl,
    callbackState: callback.state,
    deliveries: page.map(toEntry),
    nextAfterSequence: records.length > request.limit ? page[page.length - 1].sequence : null,
  };
}

function toEntry(doc: EventRecord): WebhookDeliveriesReply['deliveries'][number] {
  return {
    eventId: eventId(doc.meetingId, doc.sequence),
    sequence: doc.sequence,
    type: doc.type,
    outcome: doc.state,
    reason: doc.reason ?? null,
    attempts: doc.attempts.map((a) => ({
      at: a.at,
      deliveryId: a.deliveryId,
      status: a.status,
      error: a.error,
      durationMs: a.durationMs,
    })),
    nextAttemptAt: doc.nextAttemptAt ?? null,
    finishedAt: doc.finishedAt ?? null,
  };
}
