/**
 * Meetings from the browser: start one (it belongs to no API key: docs/api/reference.md#authentication), the
 * live ones, the ones this account started recently, and each meeting's page with its live
 * transcript (see live-events.ts), Stop, and the document once it ended.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { PLATFORM_NAMES } from '@notetaker/contracts';
import { listMeetings, start, startMeeting } from '../../operations/meetings.js';
import { listProjects } from '../../operations/projects.js';
import { ownedMeeting } from '../../operations/transcripts.js';
import { inTime, PAGE_REQUEST_TIMEOUT_MS, read, settle } from '../backend.js';
import { chrome, formOf, signedIn, uiCaller, type WebDeps } from '../context.js';
import { field } from '../form-body.js';
import { checkForm, placeErrors } from '../form-input.js';
import { requireSignIn, signedInForm } from '../guards.js';
import { html, type Html } from '../html.js';
import { csrfInput, formError, inputField, selectField, sendFragment, sendPage, time, unavailable } from '../layout.js';
import { redirect } from '../notices.js';
import { formFieldOf } from '../params.js';
import { isActive, statusBadge } from './meeting-parts.js';
import { meetingView } from './meeting-view.js';

export const DEFAULT_UI_PROJECT = 'general';
const START_FIELDS = [
  'url',
  'passcode',
  'title',
  'project',
  'signIn',
  'language',
  'coach',
  'recording',
  'transcription',
  'announcement',
] as const;
type StartField = (typeof START_FIELDS)[number];
/** start_meeting's own input schema; a meeting started here has no callback (it belongs to no key). */
const startFormInput = startMeeting.input.omit({ callbackUrl: true });

interface StartValues {
  url: string;
  /** A Zoom passcode for a link without its pwd; '' for none. */
  passcode: string;
  title: string;
  project: string;
  saveTranscript: boolean;
  signIn: string;
  language: string;
  /** '' for the service's default. */
  coach: string;
  /** '' for the installation's default (RECORDING_DEFAULT). */
  recording: string;
  transcription: string;
  /** Posted in the meeting's chat once the bot is in; '' for the installation's (BOT_ANNOUNCEMENT). */
  announcement: string;
  errors: Partial<Record<StartField | 'form', string>>;
}

type StartSelect = 'signIn' | 'coach' | 'recording' | 'transcription';

/** The start form's select fields: each choice a value and its label ('' is the installation's default). */
const START_SELECTS: Array<{ name: StartSelect; label: string; choices: Array<[string, string]> }> = [
  {
    name: 'signIn',
    label: 'How the bot joins',
    choices: [
      ['auto', 'As a guest; signed in with a bot account if guests are refused'],
      ['always', 'Signed in with a bot account'],
      ['never', 'As a guest only'],
    ],
  },
  {
    name: 'coach',
    label: 'Coaching',
    choices: [
      ['', 'Default: rules and AI when a model is configured, else rules'],
      ['ai', 'Rules and AI (decisions, action items, objections, risks)'],
      ['rules', 'Rules only (talk balance, monologue, pace, unanswered questions)'],
      ['off', 'Off'],
    ],
  },
  {
    name: 'recording',
    label: 'Audio recording',
    choices: [
      ['', 'Default: as this installation is set up (not recorded unless the operator chose otherwise)'],
      ['audio', 'Record the audio (a player beside the transcript)'],
      ['none', 'Do not record'],
    ],
  },
  {
    name: 'transcription',
    label: 'Transcribe from',
    choices: [
      ['auto', "Captions, and the meeting's audio where captions cannot be read (default)"],
      ['captions', "The platform's captions only"],
      ['audio', "The meeting's audio only, through the speech engine"],
    ],
  },
];

export function meetingPages(router: Router, deps: WebDeps): void {
  const auth = requireSignIn(deps);

  const liveList = async (ctx: Context): Promise<Html> => {
    const live = await settle(read(ctx, deps.bus, listMeetings, {}));
    if (!live.ok) return live.unavailable ? unavailable('meeting') : html`<p>${live.error.message}</p>`;
    if (live.value.meetings.length === 0) return html`<p>No meeting started here is being transcribed right now.</p>`;
    return html`<ul class="cards live-meetings">
      ${live.value.meetings.map(
        (m) =>
          html`<li>
            <article class="compact-card">
              <h3 class="h-small">
                <a href="/meetings/${m.meetingId}">${m.title || 'Untitled meeting'}</a> ${statusBadge(m.status)}
              </h3>
              <p>
                <small>${PLATFORM_NAMES[m.platform]} · ${m.project} · started ${time(m.startedAt)}</small><br />
                <small
                  >${m.participantCount} participant${m.participantCount === 1 ? '' : 's'} · ${m.segmentCount}
                  segment${m.segmentCount === 1 ? '' : 's'}</small
                >
              </p>
            </article>
          </li>`,
      )}
    </ul>`;
  };

  const renderIndex = async (ctx: Context, values: StartValues, status = 200) => {
    const { account, session } = signedIn(ctx);
    const [live, projects, recent] = await Promise.all([
      liveList(ctx),
      settle(read(ctx, deps.bus, listProjects, {})),
      recentMeetings(ctx, deps, account.id),
    ]);
    sendPage(
      ctx,
      chrome(ctx, 'Meetings', 'meetings'),
      html`<h1>Meetings</h1>
        <div class="grid-2">
          <section aria-labelledby="start-heading">
            <h2 id="start-heading">Start a meeting</h2>
            <p>
              <small
                >The bot joins as a participant and transcribes. A meeting started here belongs to no API key.</small
              >
            </p>
            <form method="post" action="/meetings" novalidate>
              ${csrfInput(session.csrfToken)} ${formError(values.errors.form)}
              ${inputField({ name: 'url', label: 'Meeting link', type: 'url', value: values.url, error: values.errors.url, required: true, placeholder: 'https://meet.google.com/abc-defg-hij', hint: 'A Google Meet, Microsoft Teams or Zoom link.', inputmode: 'url' })}
              ${inputField({ name: 'passcode', label: 'Meeting passcode', value: values.passcode, error: values.errors.passcode, maxlength: 32, autocomplete: 'off', hint: 'Zoom: only for a link without its passcode. Not stored.' })}
              ${inputField({ name: 'title', label: 'Title', value: values.title, error: values.errors.title, maxlength: 200 })}
              ${inputField({ name: 'project', label: 'Project', value: values.project, error: values.errors.project, required: true, maxlength: 64, list: 'project-options', hint: 'Letters, digits, - and _. A new project is created on first save.' })}
              <datalist id="project-options">
                ${projects.ok && projects.value.projects.map((p) => html`<option value="${p.id}"></option>`)}
              </datalist>
              ${START_SELECTS.map((select) => selectField({ ...select, value: values[select.name], error: values.errors[select.name] }))}
              ${inputField({ name: 'announcement', label: 'Notice in the chat', value: values.announcement, error: values.errors.announcement, maxlength: 500, hint: 'Posted once in the meeting chat when the bot is in, for everyone to read (who transcribes, where the transcript goes). Empty: the installation’s notice, if any.' })}
              ${inputField({ name: 'language', label: 'Spoken language', value: values.language, error: values.errors.language, maxlength: 35, placeholder: 'de-DE', hint: 'A language tag such as de-DE, es or ja-JP, for the captions. Empty: the platform default.' })}
              <label
                ><input
                  type="checkbox"
                  name="saveTranscript"
                  value="true"
                  ${values.saveTranscript ? html` checked` : ''}
                />
                Save the transcript as a document in the project</label
              >
              <button type="submit">Start transcribing</button>
            </form>
          </section>
          <section aria-labelledby="live-heading">
            <h2 id="live-heading">Live now</h2>
            <div id="live-list" hx-get="/meetings/live" hx-trigger="every 5s" hx-swap="innerHTML">${live}</div>
            <h2>Started here recently</h2>
            ${recent}
          </section>
        </div>`,
      status,
    );
  };

  router.get('/meetings', auth, (ctx) =>
    renderIndex(ctx, {
      url: '',
      passcode: '',
      title: '',
      project: DEFAULT_UI_PROJECT,
      saveTranscript: true,
      signIn: 'auto',
      language: '',
      coach: '',
      recording: '',
      transcription: 'auto',
      announcement: '',
      errors: {},
    }),
  );

  router.get('/meetings/live', auth, async (ctx) => sendFragment(ctx, await liveList(ctx)));

  router.post('/meetings', auth, signedInForm(), async (ctx) => {
    const form = formOf(ctx);
    const values: StartValues = {
      url: field(form, 'url'),
      passcode: field(form, 'passcode', 64),
      title: field(form, 'title', 400),
      project: field(form, 'project', 200) || DEFAULT_UI_PROJECT,
      saveTranscript: form.get('saveTranscript') === 'true',
      signIn: field(form, 'signIn', 20) || 'auto',
      language: field(form, 'language', 64),
      coach: field(form, 'coach', 20),
      recording: field(form, 'recording', 20),
      transcription: field(form, 'transcription', 20) || 'auto',
      announcement: field(form, 'announcement', 2000),
      errors: {},
    };
    // Checked by start_meeting's schema, as REST and MCP check it; an empty optional field is an
    // absent one (the operation's default).
    const checked = checkForm(startFormInput, {
      url: values.url,
      passcode: values.passcode || undefined,
      title: values.title || undefined,
      project: values.project,
      saveTranscript: values.saveTranscript,
      signIn: values.signIn,
      language: values.language || undefined,
      coach: values.coach || undefined,
      recording: values.recording || undefined,
      transcription: values.transcription,
      announcement: values.announcement.trim() ? values.announcement : undefined,
    });
    if (!checked.ok) {
      placeErrors(checked.errors, START_FIELDS, values.errors);
      return renderIndex(ctx, values, 400);
    }
    // start_meeting's own handler (its defaults, its time allowed), as REST and MCP start; with no callback.
    const started = await settle(start(deps.bus, uiCaller(ctx), { ...checked.input, callbackUrl: null }));
    if (!started.ok) {
      const { error } = started;
      // Every bot seat taken (load, not a fault), or no browser for the bots: the message says what to do.
      if (error.retryAfterS !== undefined) values.errors.form = error.message;
      else if (started.unavailable)
        values.errors.form = 'The meeting service is unavailable right now. Try again in a moment.';
      // 409: the link is being transcribed already (by a key, or from here), unless it names its field.
      else if (error.status === 409 && !error.field) values.errors.url = error.message;
      else values.errors[formFieldOf(error, START_FIELDS) ?? 'form'] = error.message;
      if (error.retryAfterS !== undefined) ctx.set('Retry-After', String(error.retryAfterS));
      return renderIndex(ctx, values, started.unavailable ? 503 : error.status);
    }
    await deps.uiMeetings.record({
      _id: started.value.meetingId,
      accountId: signedIn(ctx).account.id,
      title: values.title || null,
      project: started.value.project,
      saveTranscript: values.saveTranscript,
      startedAt: new Date().toISOString(),
    });
    redirect(ctx, `/meetings/${started.value.meetingId}`);
  });

  meetingView(router, deps);
}

async function recentMeetings(ctx: Context, deps: WebDeps, accountId: string): Promise<Html> {
  const recent = await deps.uiMeetings.recent(accountId);
  if (recent.length === 0) return html`<p>You have not started a meeting here yet.</p>`;
  const records = await Promise.all(
    recent.map((r) =>
      settle(inTime(ownedMeeting(deps.bus, uiCaller(ctx), r._id), PAGE_REQUEST_TIMEOUT_MS, 'the meeting')),
    ),
  );
  return html`<ul class="recent">
    ${recent.map((r, i) => {
      const rec = records[i];
      const meeting = rec.ok ? rec.value : null;
      return html`<li>
        <a href="/meetings/${r._id}">${r.title || 'Untitled meeting'}</a> ${meeting && statusBadge(meeting.status)}
        <small class="muted">${r.project} · ${time(r.startedAt)}</small>${
          meeting?.documentPath && !isActive(meeting.status) && html` · <a href="/documents/${r._id}">document</a>`
        }
      </li>`;
    })}
  </ul>`;
}
