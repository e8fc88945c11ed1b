/** Meeting events: a meeting's event log read by sequence, to catch up. */
import { z } from 'zod';
// events.ts imports nothing from rest, so this page can use its envelope without a cycle.
import { EVENT_TYPES, eventEnvelope, type EventType } from '../events.js';
import { meetingRefRequest } from './meetings.js';
import { pageLimit, queryCount } from './query.js';

export const MAX_EVENTS_LIMIT = 1000;
const EVENT_TYPES_MESSAGE = `types must be a comma-separated list of event types (${EVENT_TYPES.join(', ')})`;
const isEventType = (name: string): name is EventType => (EVENT_TYPES as readonly string[]).includes(name);

/** `types=a,b`: the event types to keep; an unknown or empty name is a 400 naming the field. */
const eventTypeList = z.string({ error: EVENT_TYPES_MESSAGE }).transform((text, ctx) => {
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.find((name) => !isEventType(name));
  if (unknown !== undefined) {
    ctx.addIssue({ code: 'custom', message: `${EVENT_TYPES_MESSAGE}: "${unknown}" is not one` });
    return z.NEVER;
  }
  return [...new Set(names.filter(isEventType))];
});

export const eventsQuery = z.strictObject({
  after: queryCount('after')
    .default(0)
    .describe(
      'Sequence of the last event already read (0, the default: from the first event). Pass the nextAfter of the previous answer.',
    ),
  limit: pageLimit(MAX_EVENTS_LIMIT, 100).describe(
    `How many events to return at most (default 100, at most ${MAX_EVENTS_LIMIT}).`,
  ),
  types: eventTypeList
    .optional()
    .describe(
      `Only events of these types, comma-separated (${EVENT_TYPES.join(', ')}). Omit for every type, caption_partial included.`,
    ),
});
export const eventsRequest = meetingRefRequest.extend(eventsQuery.shape);

export const eventsResponse = z.object({
  meetingId: z.string(),
  events: z
    .array(eventEnvelope)
    .describe(
      'In sequence order, each exactly the envelope its callback carried (type, meetingId, sequence, timestamp, payload).',
    ),
  nextAfter: z
    .number()
    .int()
    .min(0)
    .describe('The `after` of the next request: the last sequence looked at (with `types`, skipped events count too).'),
  ended: z
    .boolean()
    .describe('The meeting is over (ended or error): once a page comes back empty, every event has been read.'),
});
