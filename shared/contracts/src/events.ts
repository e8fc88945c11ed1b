/** Meeting events (docs/api/reference.md#events): one envelope, nine types, one sequence per meeting. */
import { z } from 'zod';

/** An instant in UTC with milliseconds, as every event and REST body writes it. */
export const isoTimestamp = z.string().datetime({ offset: false });

export const EVENT_TYPES = [
  'meeting_status',
  'caption_partial',
  'segment_finalized',
  'coach_insight',
  'participant_joined',
  'participant_left',
  'document_saved',
  'recording_saved',
  'chat_message',
  'speech_started',
  'speech_finished',
  'speech_failed',
] as const;
export const eventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof eventType>;

export const eventEnvelope = z.object({
  type: eventType,
  meetingId: z.string(),
  sequence: z.number().int().positive(),
  timestamp: isoTimestamp,
  payload: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof eventEnvelope>;

/** Header names of a callback delivery (docs/api/reference.md#events). */
export const CALLBACK_HEADERS = {
  signature: 'X-Service-Signature',
  event: 'X-Service-Event',
  meetingId: 'X-Service-Meeting-Id',
  deliveryId: 'X-Service-Delivery-Id',
  eventId: 'X-Service-Event-Id',
  timestamp: 'X-Service-Timestamp',
} as const;
