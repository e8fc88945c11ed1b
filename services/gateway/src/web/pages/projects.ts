/** Projects, each project's meeting history (newest first), and search over saved transcripts. */
import type Router from '@koa/router';
import { SEARCH_MAX_QUERY_LENGTH } from '@notetaker/contracts';
import { listProjectMeetings, listProjects } from '../../operations/projects.js';
import { searchTranscripts } from '../../operations/transcripts.js';
import { handle, inTime, PAGE_REQUEST_TIMEOUT_MS, read, settle } from '../backend.js';
import { chrome, type WebDeps } from '../context.js';
import { checkForm } from '../form-input.js';
import { requireSignIn } from '../guards.js';
import { html } from '../html.js';
import { formError, inputField, sendPage, time, unavailable } from '../layout.js';
import { projectIdParam } from '../params.js';

export function projectPages(router: Router, deps: WebDeps): void {
  const auth = requireSignIn(deps);

  router.get('/projects', auth, async (ctx) => {
    const listed = await settle(read(ctx, deps.bus, listProjects, {}));
    let body;
    if (!listed.ok) body = listed.unavailable ? unavailable('project') : html`<p>${listed.error.message}</p>`;
    else if (listed.value.projects.length === 0)
      body = html`<p>No project yet. A project appears when a meeting saves its first transcript into it.</p>`;
    else
      body = html`<ul class="cards">
        ${listed.value.projects.map(
          (p) =>
            html`<li>
              <a href="/projects/${p.id}"><strong>${p.name}</strong></a>
              <small class="muted">${p.hasMeetings ? 'has saved meetings' : 'no saved meetings'}</small>
            </li>`,
        )}
      </ul>`;
    sendPage(
      ctx,
      chrome(ctx, 'Projects', 'projects'),
      html`<h1>Projects</h1>
        ${body}`,
    );
  });

  router.get('/projects/:projectId', auth, async (ctx) => {
    const projectId = projectIdParam(ctx);
    const history = await settle(read(ctx, deps.bus, listProjectMeetings, { projectId }));
    if (!history.ok && !history.unavailable) throw history.error;
    const meetings = history.ok ? history.value.meetings : [];
    sendPage(
      ctx,
      chrome(ctx, projectId, 'projects'),
      html`<nav aria-label="breadcrumb">
          <ul>
            <li><a href="/projects">Projects</a></li>
            <li>${projectId}</li>
          </ul>
        </nav>
        <h1>${projectId}</h1>
        <form method="get" action="/search" role="search" class="inline-search">
          <input type="hidden" name="project" value="${projectId}" />
          <input
            type="search"
            name="q"
            aria-label="Search this project’s transcripts"
            placeholder="Search this project"
            maxlength="${SEARCH_MAX_QUERY_LENGTH}"
          />
          <button type="submit" class="secondary">Search</button>
        </form>
        <h2>Meeting history</h2>
        ${!history.ok && unavailable('project')}
        ${history.ok && meetings.length === 0 && html`<p>No saved meeting in this project yet.</p>`}
        ${
          meetings.length > 0 &&
          html`<ol class="history" reversed>
            ${meetings.map(
              (m) =>
                html`<li>
                  <article class="compact-card">
                    <h3 class="h-small"><a href="/documents/${m.meetingId}">${m.title || m.filename}</a></h3>
                    <p>
                      <small
                        >${time(m.date)} ·
                        ${m.status === 'completed' ? 'Completed' : 'In progress'}${
                          m.participants.length > 0 && html` · ${m.participants.join(', ')}`
                        }</small
                      >
                    </p>
                    <p>
                      <a href="/documents/${m.meetingId}">Read</a> ·
                      <a href="/documents/${m.meetingId}/download" download>Download</a>
                    </p>
                  </article>
                </li>`,
            )}
          </ol>`
        }`,
    );
  });

  router.get('/search', auth, async (ctx) => {
    // What was typed (echoed back cut short), checked by search_transcripts' own schema; an empty
    // project is none (every project). Opened without `q`: the form alone.
    const typed = (name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string).trim() : '');
    const [q, project] = [typed('q'), typed('project')];
    const checked =
      'q' in ctx.query ? checkForm(searchTranscripts.input, { q, project: project || undefined, limit: 50 }) : null;
    const errors = checked && !checked.ok ? checked.errors : {};
    const searched = checked?.ok
      ? await settle(inTime(handle(ctx, deps.bus, searchTranscripts, checked.input), PAGE_REQUEST_TIMEOUT_MS, 'search'))
      : null;
    const shown = (value: string) => value.slice(0, 1000);
    sendPage(
      ctx,
      chrome(ctx, q ? `Search: ${shown(q)}` : 'Search', 'search'),
      html`<h1>Search saved transcripts</h1>
        <search>
          <form method="get" action="/search" class="search-form">
            ${formError(errors[''])}
            ${inputField({ name: 'q', label: 'Words to find', type: 'search', value: shown(q), error: errors.q, required: true, maxlength: SEARCH_MAX_QUERY_LENGTH })}
            ${inputField({ name: 'project', label: 'Only in project', value: shown(project), error: errors.project, maxlength: 64 })}
            <button type="submit">Search</button>
          </form>
        </search>
        ${searched && !searched.ok && (searched.unavailable ? unavailable('search') : html`<p class="form-error" role="alert">${searched.error.message}</p>`)}
        ${
          searched?.ok &&
          html`<h2>${searched.value.results.length} result${searched.value.results.length === 1 ? '' : 's'}</h2>
            <ol class="results">
              ${searched.value.results.map(
                (r) =>
                  html`<li>
                    <article class="compact-card">
                      <h3 class="h-small"><a href="/documents/${r.meetingId}">${r.title}</a></h3>
                      <p><small>${r.project} · ${time(r.date)} · ${r.speaker} at ${time(r.timestamp)}</small></p>
                      <p>${r.snippet}</p>
                    </article>
                  </li>`,
              )}
            </ol>`
        }`,
      checked && !checked.ok ? 400 : 200,
    );
  });
}
