/**
 * The live meeting page's "Say" box: the bot says the text in the meeting (speak, the same
 * operation as REST and MCP: its checks, its 400/409 in its own words on the page).
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { SPEAK_TEXT_MAX, ServiceError } from '@notetaker/contracts';
import { speak } from '../../operations/speak.js';
import { operate } from '../backend.js';
import { field } from '../form-body.js';
import { signedInForm } from '../guards.js';
import { html, type Html } from '../html.js';
import { csrfInput } from '../layout.js';
import { redirect } from '../notices.js';
import { meetingIdParam } from '../params.js';

/** The form, for a meeting the bot is in (or joining: the operation says when it is not live yet). */
export function sayForm(meetingId: string, csrfToken: string): Html {
  return html`<form id="say-form" class="say" method="post" action="/meetings/${meetingId}/say">
    ${csrfInput(csrfToken)}
    <label for="say-text">Say in the meeting</label>
    <fieldset role="group">
      <input
        id="say-text"
        name="text"
        type="text"
        maxlength="${SPEAK_TEXT_MAX}"
        required
        placeholder="The bot says this aloud"
      />
      <button type="submit">Say</button>
    </fieldset>
  </form>`;
}

/** POST /meetings/:meetingId/say; a refusal shows the meeting's page with speak's message. */
export function meetingSpeak(
  router: Router,
  auth: Middleware,
  show: (ctx: Context, meetingId: string, refused: ServiceError) => Promise<void>,
  bus: Parameters<typeof operate>[1],
): void {
  router.post('/meetings/:meetingId/say', auth, signedInForm(), async (ctx) => {
    const meetingId = meetingIdParam(ctx);
    const text = field(ctx.state.form as URLSearchParams, 'text', SPEAK_TEXT_MAX + 1);
    try {
      await operate(ctx, bus, speak, { meetingId, text });
    } catch (err) {
      if (!(err instanceof ServiceError && (err.status === 400 || err.status === 409))) throw err;
      return show(ctx, meetingId, err);
    }
    redirect(ctx, `/meetings/${meetingId}`, 'speech-queued');
  });
}
