/**
 * A meeting's recording as the gateway answers it (get_recording, get_transcript, the meeting's
 * page): transcript-store's record of the file (it knows one deleted since), with what only the
 * bot's worker knows while it still records or sends what it spooled (`pendingBytes`, `capture`),
 * as the worker last reported it on the meeting's record.
 */
import { call, type Bus } from '@notetaker/bus';
import { routes, type MeetingRecord, type RecordingInfo } from '@notetaker/contracts';

export async function currentRecording(bus: Bus, meeting: MeetingRecord): Promise<RecordingInfo | null> {
  const stored = await call(bus, routes.recordings.get, { meetingId: meeting.meetingId });
  const reported = meeting.recording;
  if (!stored || stored.status !== 'recording' || !reported) return stored;
  const pendingBytes = stored.pendingBytes ?? reported.pendingBytes;
  const capture = stored.capture ?? reported.capture;
  return {
    ...stored,
    ...(pendingBytes !== undefined && { pendingBytes }),
    ...(capture !== undefined && { capture }),
  };
}
