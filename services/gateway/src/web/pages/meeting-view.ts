/**
 * One meeting's page: its facts, Stop while the bot is in it, the live transcript (streamed by
 * live-events.ts into the page by app.js) and, once it ended, its transcript and document link.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  PLATFORM_NAMES,
  ServiceError,
  type MeetingRecord,
  type ChatMessage,
  type RecordingInfo,
  type TranscriptSegment,
} from '@notetaker/contracts';
import { sendRecording } from '../../http/recording-download.js';
import { stopMeeting } from '../../operations/meetings.js';
import { getRecording } from '../../operations/recordings.js';
import { getTranscript, ownedMeeting } from '../../operations/transcripts.js';
import { inTime, operate, PAGE_REQUEST_TIMEOUT_MS, read, settle } from '../backend.js';
import { chrome, signedIn, uiCaller, type WebDeps } from '../context.js';
import { requireSignIn, signedInForm } from '../guards.js';
import { html, type Html } from '../html.js';
import { csrfInput, sendPage, time, unavailable } from '../layout.js';
import { redirect } from '../notices.js';
import { meetingIdParam } from '../params.js';
import { liveEvents } from './live-events.js';
import { isActive, STATUS_LABELS, statusBadge } from './meeting-parts.js';
import { recordingFigure } from './recording-figure.js';
import { chatSection, meetingChat } from './meeting-chat.js';
import { meetingSpeak, sayForm } from './meeting-speak.js';

export function meetingView(router: Router, deps: WebDeps): void {
  const auth = requireSignIn(deps);

  /**
   * The meeting's page; after a stop the operation refused (the meeting had ended), with the
   * operation's own message, as REST and MCP answer it.
   */
  const showMeeting = async (ctx: Context, meetingId: string, refused?: ServiceError) => {
    const found = await settle(
      inTime(ownedMeeting(deps.bus, uiCaller(ctx), meetingId), PAGE_REQUEST_TIMEOUT_MS, 'the meeting'),
    );
    if (!found.ok) {
      if (!found.unavailable) throw found.error;
      return sendPage(ctx, chrome(ctx, 'Meeting', 'meetings'), unavailable('meeting'), 503);
    }
    const meeting = found.value;
    const active = isActive(meeting.status);
    const { transcript, recording } = await transcriptAndRecording(ctx, deps, meeting);
    const playable = recording !== null && recording.bytes > 0 && recording.status !== 'failed';
    const page = chrome(ctx, meeting.title || 'Meeting', 'meetings');
    sendPage(
      ctx,
      refused ? { ...page, notice: refused.message } : page,
      html`<hgroup>
          <h1>${meeting.title || 'Untitled meeting'}</h1>
          <p>
            ${PLATFORM_NAMES[meeting.platform]} · project <a href="/projects/${meeting.project}">${meeting.project}</a>
          </p>
        </hgroup>
        <section
          id="meeting"
          class="meeting"
          ${active ? html` data-events="/meetings/${meetingId}/events"` : ''}
          data-has-document="${meeting.saveTranscript ? 'true' : 'false'}"
          data-status-labels="${JSON.stringify(STATUS_LABELS)}"
          data-warning-texts="${JSON.stringify(CAPTION_WARNING_TEXT)}"
        >
          <dl class="facts">
            <div>
              <dt>Status</dt>
              <dd id="meeting-status">${statusBadge(meeting.status)}</dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>${time(meeting.startedAt)}</dd>
            </div>
            <div>
              <dt>Participants</dt>
              <dd id="participant-count">${meeting.participantCount}</dd>
            </div>
            <div>
              <dt>Transcript</dt>
              <dd>${meeting.saveTranscript ? 'saved to the project' : 'not saved (live only)'}</dd>
            </div>
          </dl>
          <p
            id="caption-warnings"
            class="notice warning"
            role="alert"
            ${meeting.warnings.length > 0 && active ? '' : html` hidden`}
          >
            ${captionWarningText(meeting.warnings)}
          </p>
          ${active && html`<form id="stop-form" method="post" action="/meetings/${meetingId}/stop" data-confirm="Stop transcribing? The bot leaves the meeting.">${csrfInput(signedIn(ctx).session.csrfToken)}<button type="submit" class="contrast">Stop</button></form>`}
          ${active && sayForm(meetingId, signedIn(ctx).session.csrfToken)}
          <p id="document-link" ${meeting.documentPath && !active ? '' : html` hidden`}>
            <a href="/documents/${meetingId}" role="button" class="secondary">Open the document</a>
          </p>
          <div class="live-columns">
            <section aria-labelledby="transcript-heading">
              <h2 id="transcript-heading">Transcript</h2>
              ${recording && recordingFigure(meetingId, recording, active)}
              ${active && html`<p id="live-state" class="muted" role="status">Connecting to the live transcript…</p>`}
              <ol
                id="segments"
                class="segments${playable ? ' seekable' : ''}"
                aria-live="polite"
                aria-relevant="additions"
              >
                ${transcript?.segments.map(segmentItem)}
              </ol>
              ${transcript?.unavailable && unavailable('transcript')}
              ${active && html`<div id="partials" class="partials" aria-hidden="true"></div>`}
              ${!active && transcript && !transcript.unavailable && transcript.segments.length === 0 && html`<p>No words were transcribed.</p>`}
            </section>
            <div>
              <section aria-labelledby="participants-heading">
                <h2 id="participants-heading">Participants</h2>
                <ul id="participants" class="participants"></ul>
              </section>
              ${active && coachingSection()}
              ${chatSection(meetingId, transcript?.chat ?? [], active ? signedIn(ctx).session.csrfToken : null)}
            </div>
          </div>
        </section>`,
      refused?.status ?? 200,
    );
  };

  router.get('/meetings/:meetingId', auth, (ctx) => showMeeting(ctx, meetingIdParam(ctx)));

  router.post('/meetings/:meetingId/stop', auth, signedInForm(), async (ctx) => {
    const meetingId = meetingIdParam(ctx);
    try {
      await operate(ctx, deps.bus, stopMeeting, { meetingId });
    } catch (err) {
      // 409: the meeting has ended already; its page says so in stop_meeting's words.
      if (!(err instanceof ServiceError && err.status === 409)) throw err;
      return showMeeting(ctx, meetingId, err);
    }
    redirect(ctx, `/meetings/${meetingId}`, 'meeting-stopping');
  });

  router.get('/meetings/:meetingId/events', auth, liveEvents(deps));
  meetingChat(router, deps);
  meetingSpeak(router, auth, showMeeting, deps.bus);

  // The player's source: the REST download's code, under this session's ownership (ranges, HEAD).
  router.get('/meetings/:meetingId/recording', auth, (ctx) =>
    sendRecording(ctx, { bus: deps.bus, logger: deps.logger, caller: uiCaller(ctx), meetingId: meetingIdParam(ctx) }),
  );
}

function segmentItem(segment: TranscriptSegment): Html {
  return html`<li>
    <strong class="speaker">${segment.speaker || 'Unknown speaker'}</strong>
    <time datetime="${segment.timestamp}" class="muted">${segment.timestamp.slice(11, 19)}</time>
    <p>${segment.text}</p>
  </li>`;
}

/**
 * An ended meeting's transcript (get_transcript, which carries its recording too), or a live one's
 * recording alone (get_recording; the live view streams its segments). The recording is
 * transcript-store's word (it knows one deleted since); none, or no answer: no player.
 */
async function transcriptAndRecording(
  ctx: Context,
  deps: WebDeps,
  meeting: MeetingRecord,
): Promise<{
  transcript: { segments: TranscriptSegment[]; unavailable: boolean; chat?: ChatMessage[] } | null;
  recording: RecordingInfo | null;
}> {
  const { meetingId } = meeting;
  if (isActive(meeting.status)) {
    const recording = await settle(read(ctx, deps.bus, getRecording, { meetingId }));
    return { transcript: null, recording: recording.ok ? recording.value : null };
  }
  const stored = await settle(read(ctx, deps.bus, getTranscript, { meetingId }));
  if (!stored.ok) return { transcript: { segments: [], unavailable: true }, recording: null };
  return {
    transcript: { segments: stored.value.segments, unavailable: false, chat: stored.value.chat },
    recording: stored.value.recording,
  };
}

/** The names of the coach's categories (rules and model), for the live view. */
const COACH_CATEGORY_LABELS: Record<string, string> = {
  decision: 'Decision',
  action_item: 'Action item',
  open_question: 'Open question',
  objection: 'Objection',
  risk: 'Risk',
  follow_up: 'Follow-up',
  talk_balance: 'Talk balance',
  monologue: 'Monologue',
  pace: 'Pace',
  questions: 'Unanswered question',
};

/** coach_insight events, newest first, filled in by app.js as they come. */
function coachingSection(): Html {
  return html`<section
    aria-labelledby="coaching-heading"
    data-coach-labels="${JSON.stringify(COACH_CATEGORY_LABELS)}"
    id="coaching"
  >
    <h2 id="coaching-heading">Coaching</h2>
    <p id="no-insights" class="muted">No insights yet.</p>
    <ol id="insights" class="insights" aria-live="polite" aria-relevant="additions"></ol>
  </section>`;
}

/** What an operator reads when the bot transcribes nothing; app.js shows the same words live. */
export const CAPTION_WARNING_TEXT: Record<string, string> = {
  captions_unreadable:
    'The bot cannot read the captions of this meeting: the platform may have changed its page. Nothing is being transcribed.',
  captions_unavailable: 'The bot could not turn captions on in this meeting. Nothing is being transcribed.',
  caption_language_unavailable:
    "The bot could not set the captions to the language asked for: they are in the platform's default language.",
  recording_unavailable:
    'The recording storage refuses the audio right now: the bot keeps it on its disk and sends it when storage answers. The transcript goes on.',
  recording_capture_degraded:
    "The bot's page captures too little audio (its browser is short of CPU) or none: the recording holds silence there. The transcript goes on.",
  transcription_unavailable:
    'The speech engine does not answer: what is said is marked as not transcribed until it does.',
  transcription_budget_exhausted:
    "This meeting's budget of audio for the speech engine is spent: speech the captions miss is no longer transcribed.",
  join_screen_unknown:
    'The bot is on a joining screen it does not recognise (the platform may have changed its page). It keeps waiting until the join timeout.',
};

function captionWarningText(warnings: string[]): string {
  return warnings.map((w) => CAPTION_WARNING_TEXT[w] ?? w).join(' ');
}
