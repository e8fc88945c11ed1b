/**
 * A meeting's audio recording: what is stored (get_recording, with an absolute link to download
 * it) and its removal (delete_recording). The gateway composes both: the meeting's owner is
 * meeting-session's answer, the audio and its record are transcript-store's (`routes.recordings`).
 * The download itself answers bytes, not JSON: the gateway serves it beside these.
 */
import { z } from 'zod';
import { defineCapability, DESTRUCTIVE, READ } from '../capability.js';
import { meetingRefRequest, recordingInfo } from '../rest.js';
import { NOT_OWNED } from './meetings.js';

export const NO_RECORDING = 'No recording for this meeting';
export const NO_AUDIO_YET = 'No audio has been stored for this meeting yet';
/** The download of a recording in state `failed`: there is no file to serve. */
export const RECORDING_FAILED = 'The recording of this meeting failed: nothing of it was stored';
export const RECORDING_IN_PROGRESS = 'The meeting is still being recorded: stop it first, then delete its recording';

const { status, gaps, capture, pendingBytes } = recordingInfo.shape;
export const recordingBody = recordingInfo.extend({
  status: status.describe(
    'recording: the bot records, or (after the meeting ended) what it kept on its disk is still being stored; ' +
      'saved: the file is complete; incomplete: the file is complete but parts of the meeting are missing (gaps); ' +
      'failed: nothing was stored.',
  ),
  gaps: gaps.describe(
    'Stretches of the meeting the file does not hold, oldest first, each {startMs, endMs} on the timeline from ' +
      "startedAt and a reason: spool_full (storage refused the audio while the bot's disk spool was full), " +
      'worker_lost (the bot was lost before it sent it), unreadable_audio, no_capture. Empty when none.',
  ),
  capture: capture.describe(
    "While recording, how the bot's page captures: ok; starved (short of CPU: the file holds silence where " +
      'audio was missed); none (the page cannot capture). Absent once the recording is over.',
  ),
  pendingBytes: pendingBytes.describe(
    'While recording: bytes the bot holds (in memory or on its disk) that storage has not taken yet; after the ' +
      'meeting ended, what is left to store before recording_saved.',
  ),
  meetingId: z.string(),
  downloadUrl: z
    .string()
    .describe(
      'The absolute address of the audio file (GET with the same API key; HTTP ranges are served): `url` ' +
        'on PUBLIC_URL, or on the address this request was sent to.',
    ),
});

export const getRecording = defineCapability({
  name: 'get_recording',
  input: meetingRefRequest,
  output: recordingBody,
  errors: { 404: `${NOT_OWNED}; or ${NO_RECORDING}` },
  rest: {
    method: 'get',
    path: '/meetings/:meetingId/recording/info',
    summary: "A meeting's audio recording: status, size, length, where its timeline starts, and its download URL",
    description: 'The recording',
  },
  tool: {
    title: "Describe a meeting's audio recording",
    description:
      'The audio recording of a meeting this API key started (when it was started with recording "audio"): ' +
      'status ("recording" while the bot records and, after the meeting ended, while what it kept on its disk ' +
      'is still being stored, with pendingBytes; then "saved" when complete, "incomplete" when parts of the ' +
      'meeting are missing from the file, listed in gaps with startMs, endMs and reason, or "failed" when ' +
      "nothing was stored), size, duration, the instant its timeline starts (a segment's offset in the file is " +
      'its timestamp minus startedAt), capture (how the page captures while recording: ok, starved, none) and an ' +
      'absolute downloadUrl (an Ogg Opus file, fetched with the same API key; none for a failed recording).',
    annotations: READ,
    text: (b) =>
      `Recording of meeting ${b.meetingId}: ${b.status}, ${(b.durationMs / 1000).toFixed(1)} s, ${b.bytes} bytes ` +
      `(${b.format}), starting ${b.startedAt}.` +
      (b.pendingBytes ? ` ${b.pendingBytes} bytes are still to be stored.` : '') +
      (b.gaps.length > 0
        ? ` Missing: ${b.gaps.map((g) => `${g.startMs}-${g.endMs} ms (${g.reason})`).join(', ')}.`
        : '') +
      (b.status === 'failed' ? ' Nothing was stored.' : ` Download it with this API key: ${b.downloadUrl}`),
  },
});

export const deleteRecording = defineCapability({
  name: 'delete_recording',
  input: meetingRefRequest,
  output: z.object({ meetingId: z.string(), deleted: z.literal(true) }),
  errors: { 404: `${NOT_OWNED}; or ${NO_RECORDING}`, 409: RECORDING_IN_PROGRESS },
  rest: {
    method: 'delete',
    path: '/meetings/:meetingId/recording',
    summary: "Delete a meeting's audio recording everywhere it is kept (its transcript stays)",
    description: 'Deleted',
  },
  tool: {
    title: "Delete a meeting's audio recording",
    description:
      'Deletes the audio recording of a meeting this API key started, once the meeting has ended (the file ' +
      'and its record, wherever they are stored). The transcript and the document stay.',
    annotations: DESTRUCTIVE,
    text: (b) => `The recording of meeting ${b.meetingId} is deleted.`,
  },
});

export const RECORDING_CAPABILITIES = [getRecording, deleteRecording] as const;
