/**
 * A saved transcript document, rendered for reading (GET /documents/:meetingId) and as the
 * markdown file itself for download (…/download). Projects are the instance's shared content, so
 * every signed-in account reads every saved document, whoever started the meeting.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { contentDisposition, wholeDocument } from '../../operations/transcripts.js';
import { PAGE_REQUEST_TIMEOUT_MS, settle } from '../backend.js';
import { chrome, signedIn, type WebDeps } from '../context.js';
import { requireSignIn } from '../guards.js';
import { html } from '../html.js';
import { sendPage, time, unavailable } from '../layout.js';
import { renderMarkdown, splitDocument } from '../markdown.js';
import { meetingIdParam } from '../params.js';

export function documentPages(router: Router, deps: WebDeps): void {
  const auth = requireSignIn(deps);

  router.get('/documents/:meetingId', auth, async (ctx: Context) => {
    const meetingId = meetingIdParam(ctx);
    const doc = await settle(wholeDocument(deps.bus, meetingId, PAGE_REQUEST_TIMEOUT_MS));
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
    const doc = await wholeDocument(deps.bus, meetingId, PAGE_REQUEST_TIMEOUT_MS);
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.set('Content-Disposition', contentDisposition(doc.filename));
    ctx.body = doc.content;
  });
}
