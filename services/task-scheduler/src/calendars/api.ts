/**
 * The calendars' verbs (routes.calendars), answered by any scheduler instance: connect seals the
 * credentials and stores the calendar, the others read or change what the owner may see. The
 * instance holding the lease syncs and schedules (engine.ts); `changed` tells it.
 */
import { randomBytes } from 'node:crypto';
import { errors, type Caller, type ParsedRequestOf, type routes } from '@notetaker/contracts';
import { callbackUrlProblem, type AddressPolicy } from '@notetaker/net';
import type { SecretBox } from '@notetaker/secrets';
import { feedAddress } from './providers/ics.js';
import { calendarView, eventView, type CalendarDoc, type Credentials } from './records.js';
import { EVENT_NOT_FOUND, ownerKeyOf, type CalendarStore } from './store.js';
import { WINDOW_AHEAD_MS } from './sync.js';

const KNOWLEDGE_WRITE_MESSAGE =
  'Saving transcripts needs the knowledge:write capability, which this API key lacks (connect with saveTranscript: false to stream events only)';
const SHOWN_DAYS_MS = 7 * 86_400_000;

export interface ApiDeps {
  store: CalendarStore;
  box: SecretBox;
  policy: AddressPolicy;
  /** The calendar changed (connected, removed, an occurrence's choice): the lease holder acts on it. */
  changed(calendarId: string): void;
}

type Connect = ParsedRequestOf<typeof routes.calendars.connect>;

function credentialsOf(input: Connect, policy: AddressPolicy): Credentials {
  if (input.provider === 'ics') {
    const url = input.url!;
    if (!/^(https|webcal):\/\//i.test(url))
      throw errors.badRequest('url must be an https:// or webcal:// address', 'url');
    const problem = callbackUrlProblem(feedAddress(url), policy, 'url');
    if (problem) throw errors.badRequest(problem, 'url');
    return { provider: 'ics', url };
  }
  const oauth = { clientId: input.clientId!, clientSecret: input.clientSecret!, refreshToken: input.refreshToken! };
  return input.provider === 'google'
    ? { provider: 'google', ...oauth, calendarId: input.calendarId ?? 'primary' }
    : { provider: 'microsoft', ...oauth, tenant: input.tenant ?? 'common' };
}

export async function connect(deps: ApiDeps, input: Connect) {
  const { caller } = input;
  if (input.saveTranscript && caller.kind === 'token' && !caller.capabilities.includes('knowledge:write'))
    throw errors.forbidden(KNOWLEDGE_WRITE_MESSAGE);
  const credentials = credentialsOf(input, deps.policy);
  if (input.callbackUrl !== null) {
    const problem = callbackUrlProblem(input.callbackUrl, deps.policy);
    if (problem) throw errors.badRequest(problem, 'callbackUrl');
  }
  const doc: CalendarDoc = {
    _id: `cal_${randomBytes(12).toString('base64url')}`,
    ownerId: ownerKeyOf(caller),
    capabilities: caller.kind === 'token' ? caller.capabilities : [],
    provider: input.provider,
    credentials: deps.box.seal(JSON.stringify(credentials)),
    settings: {
      callbackUrl: input.callbackUrl,
      project: input.project,
      saveTranscript: input.saveTranscript,
      signIn: input.signIn,
      transcription: input.transcription,
      join: input.join,
      ...(input.language !== undefined && { language: input.language }),
      ...(input.recording !== undefined && { recording: input.recording }),
    },
    calendarId: credentials.provider === 'google' ? credentials.calendarId : null,
    tenant: credentials.provider === 'microsoft' ? credentials.tenant : null,
    status: 'syncing',
    error: null,
    lastSyncAt: null,
    cursor: {},
    failures: 0,
    retryAt: null,
    createdAt: new Date().toISOString(),
  };
  await deps.store.calendars.insertOne(doc);
  deps.changed(doc._id);
  return { calendar: calendarView(doc) };
}

export async function list(deps: ApiDeps, caller: Caller) {
  const docs = await deps.store.calendars.find({ ownerId: ownerKeyOf(caller) }, { sort: { createdAt: 1 } });
  return { calendars: docs.map(calendarView) };
}

export async function get(deps: ApiDeps, caller: Caller, calendarId: string) {
  return { calendar: calendarView(await deps.store.owned(caller, calendarId)) };
}

export async function remove(deps: ApiDeps, caller: Caller, calendarId: string) {
  await deps.store.owned(caller, calendarId);
  // The occurrences go first: a bot not yet started has nothing left to start from.
  await deps.store.events.deleteMany({ calendarId });
  await deps.store.calendars.deleteOne({ _id: calendarId });
  deps.changed(calendarId);
  return { calendarId, deleted: true as const };
}

export async function events(deps: ApiDeps, caller: Caller, calendarId: string) {
  const calendar = await deps.store.owned(caller, calendarId);
  const now = Date.now();
  const shown = (await deps.store.ofCalendar(calendarId))
    .filter((e) => e.endAt > now && e.startAt < now + SHOWN_DAYS_MS)
    .sort((a, b) => a.startAt - b.startAt || a.eventId.localeCompare(b.eventId));
  return { calendarId, events: shown.map((e) => eventView(calendar, e, now)) };
}

export async function setJoin(deps: ApiDeps, caller: Caller, calendarId: string, eventId: string, join: boolean) {
  const calendar = await deps.store.owned(caller, calendarId);
  const now = Date.now();
  const updated = await deps.store.events.findOneAndUpdate(
    { _id: `${calendarId}:${eventId}`, endAt: { $gt: now }, startAt: { $lt: now + WINDOW_AHEAD_MS } },
    { $set: { override: join } },
  );
  if (!updated) throw errors.notFound(EVENT_NOT_FOUND);
  deps.changed(calendarId);
  return { calendarId, event: eventView(calendar, updated, now) };
}
