/**
 * The meeting chat on a meeting's page (issue #51): the messages (streamed while live by app.js,
 * from the transcript once ended) and, while the bot is in the call, a box to post in the chat
 * as the bot: send_chat_message's own handler, as REST and MCP post.
 */
import type Router from '@koa/router';
import { CHAT_MAX_CHARS, ServiceError, sendChatMessage, type ChatMessage } from '@notetaker/contracts';
import { forwarded } from '../../operations/operation.js';
import { operate } from '../backend.js';
import { formOf, type WebDeps } from '../context.js';
import { field } from '../form-body.js';
import { requireSignIn, signedInForm } from '../guards.js';
import { html, type Html } from '../html.js';
import { csrfInput } from '../layout.js';
import { redirect } from '../notices.js';
import { meetingIdParam } from '../params.js';

const send = forwarded(sendChatMessage);

export function meetingChat(router: Router, deps: WebDeps): void {
  router.post('/meetings/:meetingId/chat', requireSignIn(deps), signedInForm(), async (ctx) => {
    const meetingId = meetingIdParam(ctx);
    try {
      await operate(ctx, deps.bus, send, { meetingId, text: field(formOf(ctx), 'text', 2000) });
    } catch (err) {
      if (!(err instanceof ServiceError) || (err.status !== 400 && err.status !== 409)) throw err;
      return redirect(ctx, `/meetings/${meetingId}`, err.status === 400 ? 'chat-invalid' : 'chat-not-live');
    }
    redirect(ctx, `/meetings/${meetingId}`, 'chat-queued');
  });
}

/** The chat's messages, and the box to post while the bot is in the call (`csrfToken`; null: none). */
export function chatSection(meetingId: string, messages: ChatMessage[], csrfToken: string | null): Html {
  return html`<section aria-labelledby="chat-heading" id="chat">
    <h2 id="chat-heading">Chat</h2>
    <ol id="chat-messages" class="segments" aria-live="polite" aria-relevant="additions">
      ${messages.map(
        (m) =>
          html`<li${m.fromBot ? html` class="from-bot"` : ''}>
            <strong class="speaker">${m.sender}</strong>
            <time datetime="${m.timestamp}" class="muted">${m.timestamp.slice(11, 19)}</time>
            <p>${m.text}</p>
          </li>`,
      )}
    </ol>
    ${
      csrfToken &&
      html`<form id="chat-form" method="post" action="/meetings/${meetingId}/chat">
        ${csrfInput(csrfToken)}
        <label for="chat-text">Write in the meeting chat as the bot</label>
        <textarea id="chat-text" name="text" rows="2" maxlength="${CHAT_MAX_CHARS}" required></textarea>
        <button type="submit" class="secondary">Send</button>
      </form>`
    }
  </section>`;
}
