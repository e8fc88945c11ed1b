import type { MeetingStatus } from '@notetaker/contracts';
import { html, type Html } from '../html.js';

/** Also handed to the live page's script (meeting-view.ts), so both say the same. */
export const STATUS_LABELS: Record<MeetingStatus, string> = {
  joining: 'Joining',
  lobby: 'In the lobby',
  live: 'Live',
  leaving: 'Leaving',
  ended: 'Ended',
  error: 'Failed',
};

/** Statuses in which the bot is (still) in the meeting and Stop means something. */
export function isActive(status: MeetingStatus): boolean {
  return status !== 'ended' && status !== 'error';
}

export function statusBadge(status: MeetingStatus): Html {
  return html`<span class="badge status-${status}" data-status="${status}">${STATUS_LABELS[status] ?? status}</span>`;
}
