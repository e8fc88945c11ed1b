/** SPEC 4.1 transcript and document, and search over saved transcripts. */
import type Router from '@koa/router';
import { getDocument, getTranscript, searchTranscripts } from '../operations/transcripts.js';
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

/**
 * `attachment` with the file name (RFC 6266): an ASCII `filename` for old clients, and
 * `filename*` in UTF-8 (RFC 8187) whenever the name is not plain ASCII.
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const header = `attachment; filename="${fallback}"`;
  if (fallback === filename) return header;
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${header}; filename*=UTF-8''${encoded}`;
}
