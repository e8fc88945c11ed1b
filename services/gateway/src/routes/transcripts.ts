/** SPEC 4.1 transcript and document, and search over saved transcripts. */
import type Router from '@koa/router';
import { contentDisposition, getDocument, getTranscript, searchTranscripts } from '../operations/transcripts.js';
import { perform } from '../operations/operation.js';
import { answer, callerOf, type RouteDeps } from './deps.js';

export function transcriptRoutes(router: Router, deps: RouteDeps): void {
  router.get(
    '/meetings/:meetingId/transcript',
    answer(deps, getTranscript, (ctx) => ({ ...ctx.query, meetingId: ctx.params.meetingId })),
  );

  router.get('/meetings/:meetingId/document', async (ctx) => {
    const doc = await perform(getDocument, deps.bus, callerOf(ctx), { meetingId: ctx.params.meetingId });
    ctx.set('Content-Disposition', contentDisposition(doc.filename));
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = doc.content;
  });

  router.get(
    '/search',
    answer(deps, searchTranscripts, (ctx) => ctx.query),
  );
}
