/** SPEC 4.1 start, stop and status; a meeting's events by sequence (catch-up). */
import type Router from '@koa/router';
import { getEvents } from '../operations/events.js';
import { listMeetings, startMeeting, stopMeeting } from '../operations/meetings.js';
import { answer, type RouteDeps } from './deps.js';

export function meetingRoutes(router: Router, deps: RouteDeps): void {
  router.post(
    '/meetings/start',
    answer(deps, startMeeting, (ctx) => ctx.request.body, 201),
  );
  router.post(
    '/meetings/stop',
    answer(deps, stopMeeting, (ctx) => ctx.request.body),
  );
  router.get(
    '/meetings/status',
    answer(deps, listMeetings, () => ({})),
  );
  router.get(
    '/meetings/:meetingId/events',
    answer(deps, getEvents, (ctx) => ({ ...ctx.query, meetingId: ctx.params.meetingId })),
  );
}
