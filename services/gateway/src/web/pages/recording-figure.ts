/**
 * A meeting's recording on its page, in words for each state (capabilities/recordings.ts): the
 * player while there are bytes to play, and what the file is: still growing while the bot is in
 * the meeting; still being stored after it left (the worker sends what it spooled, `pendingBytes`);
 * complete; complete with parts missing (each gap's times and why); or failed, nothing stored.
 */
import type { RecordingGap, RecordingInfo } from '@notetaker/contracts';
import { html, type Html } from '../html.js';

/** Why a stretch is not in the file, as an operator reads it. */
export const GAP_REASON_TEXT: Record<RecordingGap['reason'], string> = {
  spool_full: "storage refused the audio while the bot's disk spool was full",
  worker_lost: 'the bot was lost before it could send this audio',
  unreadable_audio: "the bot's page handed over audio that could not be read",
  no_capture: "the bot's page could not capture audio",
};

const CAPTURE_TEXT: Partial<Record<NonNullable<RecordingInfo['capture']>, string>> = {
  starved: "The bot's browser is short of CPU and captures too little audio: the file holds silence there.",
  none: "The bot's page cannot capture audio: the file holds silence.",
};

/** `1:02:03` or `2:03`. */
export function duration(ms: number): string {
  const total = Math.round(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** `820 bytes`, `14 KB`, `3.2 MB`. */
export function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** `From 0:12 to 0:19: why.` */
export function gapText(gap: RecordingGap): string {
  return `From ${duration(gap.startMs)} to ${duration(gap.endMs)}: ${GAP_REASON_TEXT[gap.reason] ?? gap.reason}.`;
}

/** What the recording is, in one sentence; `live`: the bot is still in the meeting. */
export function recordingSummary(recording: RecordingInfo, live: boolean): string {
  switch (recording.status) {
    case 'recording': {
      const missing = recording.gaps.length > 0 ? ' Missing so far:' : '';
      if (live) return `Recording in progress: the player holds what was recorded when the page loaded.${missing}`;
      const pending = recording.pendingBytes ? ` (${size(recording.pendingBytes)} still to send)` : '';
      return `The meeting has ended; its recording is still being stored${pending}. Reload the page to play all of it once stored.${missing}`;
    }
    case 'saved':
      return `Recording, ${duration(recording.durationMs)}.`;
    case 'incomplete': {
      const n = recording.gaps.length;
      return `Recording, ${duration(recording.durationMs)}, with ${n === 1 ? 'one part' : `${n} parts`} of the meeting missing:`;
    }
    case 'failed':
      return 'The recording failed: nothing of it was stored.';
  }
}

/**
 * The recording's figure, beside the transcript: app.js seeks the player to a segment clicked (its
 * timestamp minus `data-started-at`). Without bytes (nothing stored yet, or failed) there is no
 * player, only what the recording is.
 */
export function recordingFigure(meetingId: string, recording: RecordingInfo, live: boolean): Html {
  const src = `/meetings/${meetingId}/recording`;
  const playable = recording.bytes > 0 && recording.status !== 'failed';
  const capture = live && recording.capture ? CAPTURE_TEXT[recording.capture] : undefined;
  return html`<figure id="recording" class="recording" data-started-at="${recording.startedAt}">
    ${playable && html`<audio id="recording-player" controls preload="metadata" src="${src}"></audio>`}
    <figcaption>
      <small class="muted"
        >${recordingSummary(recording, live)}
        ${playable && html`Click a segment to play from there. <a href="${src}" download="${meetingId}.ogg">Download</a>`}</small
      >
      ${
        recording.gaps.length > 0 &&
        html`<ul class="recording-gaps">
          ${recording.gaps.map((gap) => html`<li><small>${gapText(gap)}</small></li>`)}
        </ul>`
      }
      ${capture && html`<br /><small class="muted">${capture}</small>`}
    </figcaption>
  </figure>`;
}
