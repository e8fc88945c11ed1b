/** SPEC 4.1 start, stop and status, answered by meeting-session (svc.meetings.*). */
import type Router from '@koa/router';
import { startMeetingRequest, stopMeetingRequest, svc } from '@notetaker/contracts';
import { parseInput } from '../http/validate.js';
import { callerOf, type RouteDeps } from './deps.js';

/** A start reserves a document, registers the callback and launches a bot: allow it time. */
const START_TIMEOUT_MS = 30_000;

export function meetingRoutes(router: Router, deps: RouteDeps): void {
  router.post('/meetings/start', async (ctx) => {
    const body = parseInput(startMeetingRequest, ctx.request.body);
    ctx.body = await deps.bus.request(
      svc('meetings', 'start'),
      {
        caller: callerOf(ctx),
        url: body.url,
        title: body.title ?? null,
        callbackUrl: body.callbackUrl,
        project: body.project ?? 'api',
        saveTranscript: body.saveTranscript ?? true,
      },
      { timeoutMs: START_TIMEOUT_MS },
    );
    ctx.status = 201;
  });

  router.post('/meetings/stop', async (ctx) => {
    const { meetingId } = parseInput(stopMeetingRequest, ctx.request.body);
    ctx.body = await deps.bus.request(svc('meetings', 'stop'), { caller: callerOf(ctx), meetingId });
  });

  router.get('/meetings/status', async (ctx) => {
    ctx.body = await deps.bus.request(svc('meetings', 'status'), { caller: callerOf(ctx) });
  });
}
