/** A meeting's callback delivery log (webhook-emitter). */
import { z } from 'zod';
import { meetingRefRequest } from './meetings.js';
import { pageLimit, queryCount } from './query.js';

/** Deliveries per page: the REST query's bounds and the bus request's (messages.ts). */
export const MAX_DELIVERIES_LIMIT = 1000;
export const DEFAULT_DELIVERIES_LIMIT = 500;

export const deliveriesQuery = z.strictObject({
  afterSequence: queryCount('afterSequence')
    .default(0)
    .describe('Sequence of the last event already read (default 0): pass the nextAfterSequence of the previous page.'),
  limit: pageLimit(MAX_DELIVERIES_LIMIT, DEFAULT_DELIVERIES_LIMIT).describe(
    `How many events to return at most (default ${DEFAULT_DELIVERIES_LIMIT}, at most ${MAX_DELIVERIES_LIMIT}).`,
  ),
});
export const deliveriesRequest = meetingRefRequest.extend(deliveriesQuery.shape);
