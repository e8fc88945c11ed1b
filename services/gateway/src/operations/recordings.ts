/**
 * get_recording and delete_recording (capabilities/recordings.ts), composed here: the owner check is
 * meeting-session's (`ownedMeeting`: 404 `Not found` for another key's meeting and an unknown one
 * alike), the audio and its record are transcript-store's. The download itself answers bytes, not
 * JSON: http/recording-download.ts.
 */
import { call } from '@notetaker/bus';
import {
  deleteRecording as deleteRecordingCapability,
  errors,
  getRecording as getRecordingCapability,
  isTerminalStatus,
  NO_RECORDING,
  RECORDING_IN_PROGRESS,
  routes,
} from '@notetaker/contracts';
import { currentRecording } from './current-recording.js';
import { composed } from './operation.js';
import { ownedMeeting } from './transcripts.js';

// Where the download route and the OpenAPI document have always found them.
export {
  NO_AUDIO_YET,
  NO_RECORDING,
  RECORDING_FAILED,
  RECORDING_IN_PROGRESS,
  recordingBody,
} from '@notetaker/contracts';

export const getRecording = composed(getRecordingCapability, async (bus, caller, { meetingId }, request) => {
  const meeting = await ownedMeeting(bus, caller, meetingId);
  const info = await currentRecording(bus, meeting);
  if (!info) throw errors.notFound(NO_RECORDING);
  return { meetingId: meeting.meetingId, ...info, downloadUrl: `${request.baseUrl}${info.url}` };
});

export const deleteRecording = composed(deleteRecordingCapability, async (bus, caller, { meetingId }) => {
  const meeting = await ownedMeeting(bus, caller, meetingId);
  // The bot is still writing it: deleting now would leave the rest of the meeting recorded.
  if (!isTerminalStatus(meeting.status)) throw errors.conflict(RECORDING_IN_PROGRESS);
  const { deleted } = await call(bus, routes.recordings.delete, { meetingId: meeting.meetingId });
  if (!deleted) throw errors.notFound(NO_RECORDING);
  return { meetingId: meeting.meetingId, deleted: true as const };
});
