/**
 * A meeting's callback delivery log (webhook-emitter), for the key that owns the meeting:
 * GET /api/v1/meetings/:meetingId/deliveries[?afterSequence=N&limit=M]. Ownership is
 * meeting-session's answer (404 `Not found` for unknown and foreign meetings alike); the emitter
 * checks the registering token again before answering.
 */
import type Router from '@koa/router';
import { z } from 'zod';
import { call } from '@notetaker/bus';
import { errors, MEETING_ID, routes } from '@notetaker/contracts';
import { parseInput } from '../http/validate.js';
import { callerOf, type RouteDeps } from './deps.js';

export const deliveriesQuery = z.strictObject({
  afterSequence: z.coerce
    .number({ error: 'afterSequence must be a number' })
    .int('afterSequence must be an integer')
    .min(0, 'afterSequence must not be negative')
    .default(0),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(1000, 'limit must be at most 1000')
    .default(500),
});

export function deliveryRoutes(router: Router, deps: RouteDeps): void {
  router.get('/meetings/:meetingId/deliveries', async (ctx) => {
    const caller = callerOf(ctx);
    const { meetingId } = ctx.params;
    // A malformed id names no meeting: the same 404 as an unknown one, without a bus round trip.
    if (!MEETING_ID.test(meetingId)) throw errors.notFound();
    const page = parseInput(deliveriesQuery, ctx.query);
    await call(deps.bus, routes.meetings.get, { caller, meetingId });
    ctx.body = await call(deps.bus, routes.webhooks.deliveries, { caller, meetingId, ...page });
  });
}
