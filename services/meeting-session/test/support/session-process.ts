/**
 * A meeting-session process for tests that need a real separate process to kill (SIGKILL):
 *
 *   tsx session-process.ts stack   transcript-store + meeting-session on an in-process bus; starts
 *                                  one meeting (MEETING_URL) and prints {"meetingId": ...}, then
 *                                  {"meetingId": ..., "status": ...} as each status is stored
 *   tsx session-process.ts worker  a meeting-session worker on NATS_URL (MEETING_SESSION_ROLE=worker)
 *
 * It prints one JSON line per fact ({"ready": ...}, {"placed": meetingId}) and runs until killed.
 * A worker says it is ready once nats-server has its subscriptions (the placement queue group).
 * The meeting platform is the scripted one (bots are admitted, nobody speaks). SCRIPTED_AUDIO_MS:
 * once admitted, each bot's page hands over that much audio (silence) every as many ms. LOG_LEVEL
 * other than silent: the services' JSON log lines are facts too.
 */
import { connectBus } from '@notetaker/bus';
import { createLogger, silentLogger } from '@notetaker/observability';
import { evtMeeting, routes, type EventEnvelope } from '@notetaker/contracts';
import { loadBaseConfig } from '@notetaker/config';
import type { ServiceDefinition } from '@notetaker/service-runtime';
import { transcriptStoreService } from '@notetaker/transcript-store';
import { meetingSessionService, type RunningMeetingSession } from '../../src/service.js';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startInProcess } from './in-process.js';

const mode = process.argv[2];
const config = loadBaseConfig();
const bus = await connectBus({ natsUrl: config.natsUrl, name: `test-${mode}` });
const say = (fact: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(fact)}\n`);

const scripted = scriptedDriverFactory();
const audioMs = Number(process.env.SCRIPTED_AUDIO_MS ?? 0);
const driverFactory = {
  ...scripted,
  create: (target: Parameters<typeof scripted.create>[0]) => {
    say({ placed: target.meetingId });
    if (audioMs > 0)
      void scripted.meeting(target.meetingId).then((meeting) => {
        const timer = setInterval(() => (meeting.left ? clearInterval(timer) : meeting.audio(audioMs)), audioMs);
      });
    return scripted.create(target);
  },
};

async function launch<R>(definition: ServiceDefinition): Promise<R> {
  const level = process.env.LOG_LEVEL ?? 'silent';
  const logger = level === 'silent' ? silentLogger() : createLogger({ service: definition.name, level });
  return (await startInProcess(definition, bus, config, logger)).running as R;
}

if (mode === 'stack') {
  // Events are published once stored: a status heard here is in the event log.
  bus.subscribe(evtMeeting('*', 'meeting_status'), (data) => {
    const { meetingId, payload } = data as EventEnvelope;
    say({ meetingId, status: payload.status });
  });
  await launch(transcriptStoreService());
  await launch(meetingSessionService({ driverFactory }));
  const started = await bus.request<{ meetingId: string }>(routes.meetings.start.subject, {
    caller: { kind: 'token', tokenId: 'tok_alpha', capabilities: ['knowledge:write'] },
    url: process.env.MEETING_URL,
    title: 'Crash test',
    callbackUrl: null,
    project: 'api',
    saveTranscript: true,
  });
  say({ meetingId: started.meetingId });
} else {
  const session = await launch<RunningMeetingSession>(meetingSessionService({ driverFactory }));
  await bus.flush();
  say({ ready: session.worker?.workerId ?? null });
}
// Runs until the test kills it.
setInterval(() => undefined, 60_000);
