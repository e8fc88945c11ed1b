/**
 * Messages shown after a redirect (`?notice=<code>`). Only these fixed texts can be shown this
 * way: a query string never puts its own words on a page.
 */
import type { Context } from 'koa';

const NOTICES = {
  'signed-out': 'You have signed out.',
  expired: 'Your session has expired. Sign in again to continue.',
  'token-revoked': 'The token was revoked. Requests with its key are refused from now on.',
  'token-gone': 'A new token’s key and signing secret are shown only once, right after creation.',
  'account-created': 'The account was created. Its owner can sign in now.',
  'bot-account-added':
    'The bot account was added. Delete the session file now: the service keeps its own encrypted copy.',
  'bot-account-removed': 'The bot account was removed. Bots no longer sign in with it.',
  'meeting-stopping': 'The bot is leaving the meeting. The transcript is being finalised.',
  'task-created': 'The task was created.',
  'task-enabled': 'The schedule is enabled.',
  'task-disabled': 'The schedule is paused. The cron expression is kept.',
  'task-started': 'The task is running. Its outcome appears in the history below.',
  'calendar-connected': 'The calendar is connected. Its first sync is under way.',
  'calendar-removed': 'The calendar is disconnected. Its bots not started yet are cancelled.',
  'calendar-event-changed': 'Your choice for that meeting is saved.',
  'chat-queued': 'The message is on its way to the meeting chat.',
  'chat-invalid': 'A chat message is 1 to 500 characters.',
  'chat-not-live': 'The bot is not in the call: nothing can be posted in its chat now.',
  'speech-queued': 'The bot will say it in the meeting.',
} as const;

export type NoticeCode = keyof typeof NOTICES;

export function noticeFrom(ctx: Context): string | null {
  const code = ctx.query.notice;
  return typeof code === 'string' && Object.hasOwn(NOTICES, code) ? NOTICES[code as NoticeCode] : null;
}

/** 303 See Other: the browser follows with a GET, so a reload never re-submits a form. */
export function redirect(ctx: Context, location: string, notice?: NoticeCode): void {
  ctx.status = 303;
  ctx.redirect(notice ? `${location}${location.includes('?') ? '&' : '?'}notice=${notice}` : location);
}
