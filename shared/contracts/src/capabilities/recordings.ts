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
export const RECORDING_IN_PROGRESS = 'The meeting is still being recorded: stop it first, then delete its recording';

export const recordingBody = recordingInfo.extend({
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
      'status (recording while the meeting is live, then saved), size, duration, the instant its timeline ' +
      "starts (a segment's offset in the file is its timestamp minus startedAt) and an absolute downloadUrl " +
      '(an Ogg Opus file, fetched with the same API key).',
    annotations: READ,
    text: (b) =>
      `Recording of meeting ${b.meetingId}: ${b.status}, ${(b.durationMs / 1000).toFixed(1)} s, ${b.bytes} bytes ` +
      `(${b.format}), starting ${b.startedAt}. Download it with this API key: ${b.downloadUrl}`,
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
