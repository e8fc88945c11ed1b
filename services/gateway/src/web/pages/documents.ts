/**
 * A saved transcript document, rendered for reading (GET /documents/:meetingId) and as the
 * markdown file itself for download (…/download). Projects are the instance's shared content, so
 * every signed-in account reads every saved document, whoever started the meeting.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ServiceError, svc } from '@notetaker/contracts';
import type { Bus } from '@notetaker/bus';
import { ask, settle } from '../backend.js';
import { chrome, signedIn, type WebDeps } from '../context.js';
import { requireSession } from '../guards.js';
import { html } from '../html.js';
import { sendPage, time, unavailable } from '../layout.js';
import { renderMarkdown, splitDocument } from '../markdown.js';
import { meetingIdParam } from '../params.js';

interface DocumentPage {
  filename: string;
  documentPath: string;
  content: string;
  version: string;
  nextOffset: number | null;
}

/** The whole document, page by page; a flush in between (409 document_changed) starts it over. */
export async function readDocument(bus: Bus, meetingId: string): Promise<DocumentPage> {
  for (let attempt = 0; ; attempt++) {
    try {
      const first = await ask<DocumentPage>(bus, svc('transcripts', 'document'), { meetingId, offset: 0 });
      let content = first.content;
      let next = first.nextOffset;
      while (next !== null) {
        const page = await ask<DocumentPage>(bus, svc('transcripts', 'document'), {
          meetingId,
          offset: next,
          version: first.version,
        });
        content += page.content;
        next = page.nextOffset;
      }
      return { ...first, content, nextOffset: null };
    } catch (err) {
      const changed = err instanceof ServiceError && err.status === 409;
      if (!changed || attempt >= 2) throw err;
    }
  }
}

export function documentPages(router: Router, deps: WebDeps): void {
  const auth = requireSession(deps);

  router.get('/documents/:meetingId', auth, async (ctx: Context) => {
    const meetingId = meetingIdParam(ctx);
    const doc = await settle(readDocument(deps.bus, meetingId));
    if (!doc.ok) {
      if (doc.unavailable) return sendPage(ctx, chrome(ctx, 'Document', 'projects'), unavailable('transcript'), 503);
      throw doc.error;
    }
    const { fields, body } = splitDocument(doc.value.content);
    const mine = await deps.uiMeetings.startedBy(signedIn(ctx).account.id, meetingId);
    const project = fields.project;
    sendPage(
      ctx,
      chrome(ctx, fields.title || doc.value.filename, 'projects'),
      html`<nav aria-label="breadcrumb">
          <ul>
            <li><a href="/projects">Projects</a></li>
            ${project && html`<li><a href="/projects/${project}">${project}</a></li>`}
            <li>${doc.value.filename}</li>
          </ul>
        </nav>
        <article class="document">
          <header>
            <dl class="facts">
              ${
                fields.date &&
                html`<div>
                  <dt>Date</dt>
                  <dd>${time(fields.date)}</dd>
                </div>`
              }
              ${
                fields.status &&
                html`<div>
                  <dt>Status</dt>
                  <dd>${fields.status === 'completed' ? 'Completed' : 'In progress'}</dd>
                </div>`
              }
              <div>
                <dt>File</dt>
                <dd><code>${doc.value.documentPath}</code></dd>
              </div>
            </dl>
            <div class="actions">
              <a href="/documents/${meetingId}/download" role="button" class="secondary" download>Download markdown</a>
              ${mine && html`<a href="/meetings/${meetingId}" role="button" class="secondary outline">Meeting page</a>`}
            </div>
          </header>
          <div class="markdown">${renderMarkdown(body)}</div>
        </article>`,
    );
  });

  router.get('/documents/:meetingId/download', auth, async (ctx: Context) => {
    const meetingId = meetingIdParam(ctx);
    const doc = await readDocument(deps.bus, meetingId);
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.set('Content-Disposition', contentDisposition(doc.filename));
    ctx.body = doc.content;
  });
}

/** An ASCII fallback name and the exact UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
